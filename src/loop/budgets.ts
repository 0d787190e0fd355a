// Budgets with finite defaults: tokens, cost, wall time and iterations — whichever comes first.
import { totalUsage, type Loop, type StopReason } from "./loop.js"

export interface BudgetBreach {
  reason: Extract<StopReason, "max-iterations" | "retries-exhausted" | "token-budget" | "cost-budget" | "time-budget">
  detail: string
}

/** The first budget the loop has used up, if any (checked before another turn is started). */
export function exceededBudget(loop: Loop, now: number): BudgetBreach | undefined {
  const spent = exceededSpend(loop, now)
  if (spent) return spent
  const { settings } = loop
  // Both reached together (an explicit iteration limit raised the retry limit with it): the iteration limit is named.
  if (loop.iteration >= settings.maxIterations)
    return { reason: "max-iterations", detail: `iteration limit reached: ${loop.iteration} of ${settings.maxIterations} (maxIterations)` }
  if (loop.retries >= settings.maxRetries)
    return { reason: "retries-exhausted", detail: `stopped after ${loop.retries} restart${loop.retries === 1 ? "" : "s"} (maxRetries ${settings.maxRetries})` }
  return undefined
}

/** The budgets a loop spends even while it only resumes or waits: tokens, cost and wall time. */
export function exceededSpend(loop: Loop, now: number): BudgetBreach | undefined {
  const { settings } = loop
  const usage = totalUsage(loop)
  if (usage.tokens >= settings.maxTokens)
    return { reason: "token-budget", detail: `token budget used up: ${usage.tokens.toLocaleString("en")} of ${settings.maxTokens.toLocaleString("en")} tokens (maxTokens)` }
  if (usage.cost >= settings.maxCost)
    return { reason: "cost-budget", detail: `cost budget used up: ${usage.cost.toFixed(2)} of ${settings.maxCost.toFixed(2)} (maxCost)` }
  const minutes = (now - loop.startedAt) / 60_000
  if (minutes >= settings.maxWallMinutes)
    return { reason: "time-budget", detail: `time budget used up: ${minutes.toFixed(1)} of ${settings.maxWallMinutes} minutes (maxWallMinutes)` }
  return undefined
}
