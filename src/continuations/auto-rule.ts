// auto-continue (seed 004's auto mode), the rule: after a turn that changed files, the fast checks
// ran; while they report errors the session is continued — at most `max` times per user message,
// and not once the errors stopped falling (two check runs in a row without fewer errors).
export interface AutoRun {
  /** Continuations sent since the user's last message. */
  count: number
  /** Errors the checks reported at each run since then, oldest first. */
  errors: number[]
  /** Ended for this user message (limit, stagnation, a completion marker): nothing more until they write. */
  ended: boolean
}

export const freshRun = (): AutoRun => ({ count: 0, errors: [], ended: false })

export type AutoStep =
  | { type: "pass" }
  | { type: "continue"; errors: number; n: number }
  | { type: "limit"; errors: number }
  | { type: "stagnant"; errors: number; runs: number }

/** Runs in a row without fewer errors than the run before (the last one included). */
export function stagnantRuns(errors: readonly number[]): number {
  let runs = 0
  for (let i = errors.length - 1; i > 0 && (errors[i] as number) >= (errors[i - 1] as number); i -= 1) runs += 1
  return runs
}

export const STAGNANT_RUNS = 2

export function nextAutoStep(run: AutoRun, errors: number, max: number): { step: AutoStep; next: AutoRun } {
  const history = [...run.errors, errors]
  if (errors === 0) return { step: { type: "pass" }, next: { ...run, errors: history } }
  const runs = stagnantRuns(history)
  if (runs >= STAGNANT_RUNS)
    return { step: { type: "stagnant", errors, runs }, next: { ...run, errors: history, ended: true } }
  if (run.count >= max) return { step: { type: "limit", errors }, next: { ...run, errors: history, ended: true } }
  return {
    step: { type: "continue", errors, n: run.count + 1 },
    next: { count: run.count + 1, errors: history, ended: false },
  }
}
