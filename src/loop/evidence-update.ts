// Where a decision's evidence (issue 39) goes: a completion keeps it as the loop's, and a plan story
// the decision marks done keeps it as the story's (its write-back note says what it rests on). Pure.
import type { Evidence } from "../evidence/record.js"
import type { Decision, LoopUpdate } from "./decide.js"
import type { Loop } from "./loop.js"

/** Whether the decision completes the loop or marks a story done (then its evidence is recorded). */
export const recordsEvidence = (loop: Pick<Loop, "plan">, decision: Decision, update: LoopUpdate): boolean =>
  decision.type === "complete" || (update.plan !== undefined && update.plan.done.length > (loop.plan?.done.length ?? 0))

export function withEvidence(
  loop: Pick<Loop, "plan">,
  decision: Decision,
  update: LoopUpdate,
  evidence: Evidence,
): LoopUpdate {
  const next: LoopUpdate = decision.type === "complete" ? { ...update, evidence } : { ...update }
  const plan = update.plan
  if (plan && plan.done.length > (loop.plan?.done.length ?? 0)) {
    const done = plan.done.map((d, i) => (i === plan.done.length - 1 ? { ...d, evidence } : d))
    next.plan = { ...plan, done }
  }
  return next
}
