// The model called ralph_done: its claim is judged at once, by the rule the turn's end applies
// (the checks, the todo veto), so the tool can answer in the same turn.
import { judgeClaim, type ClaimJudgement } from "../../loop/claim.js"
import type { DiagnosticSnapshot } from "../../checks/diagnostics.js"
import type { Loop } from "../../loop/loop.js"
import { io, type Job } from "../../effects/kernel.js"
import { log } from "../../effects/jobs.js"
import { runChecks } from "./checks.js"
import { acceptedFiles, allPassed, readFindings, replayIfPassed } from "./guard.js"
import { judgeReplay } from "../../loop/replay-judgement.js"
import { outsideReplay } from "../../evidence/replay-record.js"
import { guardMode } from "../../config/guard-setting.js"
import { refusalFeedback, refusingFindings } from "../../evidence/refusal.js"
import type { JobContext } from "./context.js"

export interface JudgedClaim {
  judgement: ClaimJudgement
  snapshot: DiagnosticSnapshot | undefined
}

export function* judgeToolClaim(ctx: JobContext, loop: Loop, messageID: string): Job<JudgedClaim> {
  const snapshot = yield* runChecks(ctx, loop)
  // The replay's reads (issue 46) of the work tree after the checks (as the sample's: the turn's end, on the
  // same tree, takes this replay's result) run beside the sample and the guard's read.
  if (guardMode(loop.settings.guard) !== "off" && allPassed(snapshot)) yield* io({ kind: "replay-prepare", loop })
  // The work tree after the checks ran: if the turn ends on it, they need not run again.
  const sample = yield* io({ kind: "sample", loop })
  let judgement = judgeClaim(snapshot, sample.openTodos, loop.settings)
  // The guard answers now too, so the tool never says "Accepted" to a claim the turn's end refuses.
  if (judgement.accepted && guardMode(loop.settings.guard) !== "off") {
    const mode = guardMode(loop.settings.guard)
    const weakened = (yield* readFindings(ctx, loop))?.weakened
    const found = refusingFindings(mode, weakened)
    // The replay (issue 46) as the turn's end will judge it: it refuses, or proves the claim past the findings.
    const replayed = judgeReplay(
      loop,
      yield* replayIfPassed(loop, snapshot, undefined, acceptedFiles(loop, weakened)),
      found,
    )
    const refusing = replayed.proves ? found.filter(outsideReplay) : found
    const refused = [...(mode === "refuse" ? replayed.refused : []), ...refusalFeedback(refusing)]
    if (refused.length > 0) judgement = { ...judgement, accepted: false, refused }
  }
  ctx.manager.claimJudged(
    loop,
    sample.workTree === undefined ? undefined : { messageID, workTree: sample.workTree, snapshot },
  )
  yield* log("info", `ralph_done: claim ${judgement.accepted ? "holds" : "rejected"}`, {
    loop: loop.id,
    iteration: loop.iteration,
    unmet: judgement.unmet,
    openTodos: judgement.openTodos,
  })
  return { judgement, snapshot }
}
