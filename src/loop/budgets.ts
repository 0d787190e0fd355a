// Budgets with finite defaults: tokens, cost, wall time and iterations — whichever comes first.
import { totalUsage, type Loop, type StopReason } from "./loop.js"
import { taskRetries } from "./limits.js"
import { currentStory } from "../plan/plan.js"

export interface BudgetBreach {
  reason: Extract<StopReason, "max-iterations" | "retries-exhausted" | "token-budget" | "cost-budget" | "time-budget">
  detail: string
}

/** The first budget the loop has used up, if any (checked before another turn is started). */
export function exceededBudget(loop: Loop, now: number): BudgetBreach | undefined {
  const spent = exceededSpend(loop, now)
  if (spent) return spent
  const { settings } = loop
  // Both reached together (the limit set last raised the other to match): the iteration limit is named.
  if (loop.iteration >= settings.maxIterations)
    return {
      reason: "max-iterations",
      detail: `iteration limit reached: ${loop.iteration} of ${settings.maxIterations} (maxIterations)`,
    }
  // A plan's retries are its current story's: a story done starts the count over.
  const retries = taskRetries(loop)
  if (retries >= settings.maxRetries) {
    const restarts = `${retries} restart${retries === 1 ? "" : "s"}`
    const story = loop.plan ? currentStory(loop.plan) : undefined
    return {
      reason: "retries-exhausted",
      detail: story
        ? `story ${story.id} (${story.title}) is not done after ${retries + 1} ` +
          `iteration${retries === 0 ? "" : "s"}, ${restarts} (maxRetries ${settings.maxRetries} per story)`
        : `stopped after ${restarts} (maxRetries ${settings.maxRetries})`,
    }
  }
  return undefined
}

/** The budgets a loop spends even while it only resumes or waits: tokens, cost and wall time. */
export function exceededSpend(loop: Loop, now: number): BudgetBreach | undefined {
  const { settings } = loop
  const usage = totalUsage(loop)
  if (usage.tokens >= settings.maxTokens)
    return {
      reason: "token-budget",
      detail:
        `token budget used up: ${usage.tokens.toLocaleString("en")} of ` +
        `${settings.maxTokens.toLocaleString("en")} tokens (maxTokens)`,
    }
  if (usage.cost >= settings.maxCost)
    return {
      reason: "cost-budget",
      detail: `cost budget used up: ${usage.cost.toFixed(2)} of ${settings.maxCost.toFixed(2)} (maxCost)`,
    }
  const minutes = (now - loop.startedAt) / 60_000
  if (minutes >= settings.maxWallMinutes)
    return {
      reason: "time-budget",
      detail: `time budget used up: ${minutes.toFixed(1)} of ${settings.maxWallMinutes} minutes (maxWallMinutes)`,
    }
  return undefined
}
