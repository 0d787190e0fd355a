// A completion claim — the promise, the status block's exit signal, or a call of the ralph_done tool —
// and what the checks and the todos say of it. One rule for every way to claim, so the tool's answer
// in the model's turn and the decision when the turn ends never disagree.
import { currentStory, markCurrentDone } from "../plan/plan.js"
import { failureReport, unmetCriteria, type Criteria } from "./criteria.js"
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"
import type { Loop } from "./loop.js"

export interface ClaimJudgement {
  /** What the checks leave unmet (empty: they pass, or there are none). */
  unmet: string[]
  /** Open todos that veto the claim (requireTodosDone). */
  openTodos: string[]
  accepted: boolean
  /** The guard's refusal, as the model reads it (issue 39). */
  refused?: string[]
}

export function judgeClaim(
  snapshot: DiagnosticSnapshot | undefined,
  openTodos: readonly string[],
  settings: Criteria & { requireTodosDone: boolean },
): ClaimJudgement {
  const unmet = snapshot ? unmetCriteria(snapshot, settings) : []
  const vetoing = settings.requireTodosDone ? [...openTodos] : []
  return { unmet, openTodos: vetoing, accepted: unmet.length === 0 && vetoing.length === 0 }
}

/** The open todos that rejected a claim, as the model reads them. */
export function todosFeedback(openTodos: readonly string[]): string[] {
  return openTodos.length > 0
    ? [
        `The completion claim was rejected: these todos are still open — finish them (or cancel the ones no ` +
          `longer needed), then claim again:`,
        ...openTodos.map((t) => `- ${t}`),
      ]
    : []
}

/**
 * What the ralph_done tool answers the model, in the same turn: whether its claim holds now, and if
 * not, why. The decision itself is still taken when the turn ends (the same rule, run again).
 */
export function claimAnswer(
  loop: Loop,
  judgement: ClaimJudgement,
  snapshot: DiagnosticSnapshot | undefined,
  reviewed: boolean,
): string {
  if (!judgement.accepted) {
    const checks =
      judgement.unmet.length > 0
        ? [
            "The checks do not pass yet:",
            ...judgement.unmet.map((u) => `- ${u}`),
            "",
            ...(snapshot ? [failureReport(snapshot)] : []),
          ]
        : []
    return [
      "Rejected: the claim does not hold yet, so the loop goes on.",
      "",
      ...(judgement.refused ? [...judgement.refused, ""] : []),
      ...todosFeedback(judgement.openTodos),
      ...(judgement.openTodos.length && checks.length ? [""] : []),
      ...checks,
      "",
      "Fix what is reported above, then call ralph_done again.",
    ].join("\n")
  }
  const passing = snapshot
    ? `the checks pass (${snapshot.checks.map((c) => c.name).join(", ")})`
    : "no checks are configured"
  const story = loop.plan ? currentStory(loop.plan) : undefined
  if (loop.plan && story && currentStory(markCurrentDone(loop.plan, loop.iteration, [])))
    return (
      `Accepted: story ${story.id} is done — ${passing}. End your turn now; the next story comes in the ` +
      `next prompt.`
    )
  // The dual exit gate wants the status block as well: the call alone does not open it.
  if (loop.settings.exitGate === "dual")
    return (
      `Accepted: ${passing}. The exit gate is dual: the loop completes after two replies in a row that ` +
      `indicate completion and end with the RALPH_STATUS block saying EXIT_SIGNAL: true.`
    )
  return (
    `Accepted: ${passing}. End your turn now: the loop completes when ` +
    `it ends${reviewed ? ", once a reviewer has approved the change" : ""}.`
  )
}
