// Going on after a wait or a resume: the same iteration resumes (no iteration used), or the next one
// starts — unless a budget is used up. And what going on costs in model calls.
import { exceededBudget, type BudgetBreach } from "./budgets.js"
import type { Loop, Wait } from "./loop.js"

export type GoOnHow = Pick<Wait, "then" | "fresh">
/** How /ralph-resume goes on; `recover`: the loop waited after a restart of OpenCode (resumeOnStart "ask"). */
export type ResumeHow = GoOnHow & { recover?: boolean }

/** Model calls it takes: a resume or a `continue` is one prompt; a fresh session also costs its summary. */
export const callsToGoOn = (loop: Loop, how: GoOnHow): number =>
  how.then === "resume" || (loop.settings.strategy === "continue" && !how.fresh) ? 1 : 2

export type GoOn =
  /** Stopped or paused meanwhile: nothing is sent. */
  { type: "none" } | { type: "stop"; breach: BudgetBreach } | { type: "resume" } | { type: "next"; fresh: boolean }

export function decideGoOn(loop: Loop, how: GoOnHow, now: number): GoOn {
  if (loop.phase === "stopped" || loop.phase === "paused") return { type: "none" }
  if (how.then === "resume") return { type: "resume" }
  // A next iteration, also one started by hand (/ralph-resume of a breaker wait), is bound by the budgets.
  const breach = exceededBudget(loop, now)
  return breach ? { type: "stop", breach } : { type: "next", fresh: how.fresh ?? false }
}
