// A turn of a loop ended (its idle was claimed): settle, read the turn, run the checks if due, let
// the pure core decide, and act on the decision.
import { relative } from "node:path"
import { decide, hasNewReply, type Decision } from "../../loop/decide.js"
import type { DiagnosticSnapshot } from "../../checks/diagnostics.js"
import type { Loop } from "../../loop/loop.js"
import type { ProgressSample } from "../../loop/progress.js"
import type { Turn } from "../../loop/turn.js"
import { readTurn, sessionUsage, type MessageWithParts } from "../../loop/read-turn.js"
import { all, io, type Effect, type Job } from "../../effects/kernel.js"
import { log, notify, reached } from "../../effects/jobs.js"
import * as notice from "../../loop/notices.js"
import { checkIfDue } from "./checks.js"
import { checkpointMade } from "../../checkpoints/checkpoint-job.js"
import type { JobContext } from "./context.js"
import { retitleEnded } from "./ended.js"
import { fail } from "./fail.js"
import { goOn, RESUMED } from "./go-on.js"
import { recordIteration } from "./record.js"
import { consolidate } from "../../memory/memory-job.js"
import { goOnFromSession } from "./recover.js"
import { iterate } from "./restart.js"
import { currentStory } from "../../plan/plan.js"
import { featureOn } from "../../config/features.js"
import { afterReview } from "../../review/outcome.js"
import { reviewOptions } from "../../review/settings.js"
import { review } from "../../review/review-job.js"
import { guardClaim, replayMayCome } from "./guard.js"
import type { GuardResult } from "./guard.js"
import { claimEvidence } from "../../evidence/claim-evidence.js"
import { recordsEvidence, withEvidence } from "../../loop/evidence-update.js"

export function* turnEnded(ctx: JobContext, loop: Loop): Job {
  yield* reached("turn.ended")
  const { busyEpoch, userEpoch } = loop
  /** The user wrote meanwhile: their turn runs now, and its end will be decided instead. */
  const userMovedOn = () => {
    if (loop.userEpoch === userEpoch) return false
    ctx.manager.keepWatching(loop, true)
    return true
  }
  try {
    // The turn's reads (its messages, the work-tree sample: an HTTP and a git call) run during the settle wait.
    const { messages, sample, changedFiles, checkpoint } = yield* settled(loop)
    if (loop.phase !== "deciding") return
    // The session started working again while we waited (the user typed, OpenCode continued): the
    // messages read are not the last turn's any more, and that turn is watched instead.
    if (loop.busyEpoch !== busyEpoch) return ctx.manager.keepWatching(loop, true)
    if (userMovedOn()) return
    const damaged = yield* io({ kind: "verify-state", loop })
    if (loop.phase !== "deciding" || userMovedOn()) return
    if (damaged) {
      yield* log("warn", `state file ${damaged.file} ${damaged.message}`, { loop: loop.id })
      yield* notify({
        variant: "warning",
        title: "Ralph · state file restored",
        message: `${relative(ctx.directory, damaged.file)} ${damaged.message}.`,
      })
    }
    ctx.manager.usageMeasured(loop, loop.sessionID, sessionUsage(messages))
    const turn = readTurn(messages)
    // /ralph-resume: its own turn ended and the loop's last turn was already decided — go on now.
    const resume = ctx.manager.takeResumeRequest(loop)
    if (resume?.recover) return yield* goOnFromSession(ctx, loop, { idle: true, messages }, userEpoch)
    if (resume && !hasNewReply(loop, turn)) return yield* goOn(ctx, loop, resume, userEpoch, RESUMED)
    // The replay's reads (issue 46) need the checkpoint only, not the checks' results: they run beside the checks.
    if (checkpoint !== undefined && hasNewReply(loop, turn) && replayMayCome(loop, turn, sample))
      yield* io({ kind: "replay-prepare", loop, at: checkpoint })
    // Checks only for a reply not decided yet (a control command's turn re-reads the last one).
    const snapshot = hasNewReply(loop, turn) ? yield* checkIfDue(ctx, loop, turn, sample) : undefined
    if (loop.phase !== "deciding" || userMovedOn()) return
    // The guard reads the loop's changes before a claim of done can be accepted (issue 39).
    const guard = hasNewReply(loop, turn) ? yield* guardClaim(ctx, loop, turn, snapshot, checkpoint) : undefined
    if (loop.phase !== "deciding" || userMovedOn()) return
    yield* decideAndAct(ctx, loop, { turn, sample, snapshot, changedFiles, guard }, userEpoch)
  } catch (error) {
    yield* fail(ctx, loop, "could not handle the end of a turn", error)
  }
}

/**
 * The turn's messages, the work-tree sample, the iteration's checkpoint and (for the progress log)
 * the files changed since the loop began, while late events settle: the turn is over, so none of
 * them waits in the path to the next prompt. The messages are final at the idle (OpenCode stores a
 * turn before it says idle); what may come during the settle is a new turn — the user's, or
 * OpenCode's own — which the epochs tell, and then these messages are not used. A plan loop reads
 * its files after its record step instead, which may write the plan file or commit.
 */
function* settled(loop: Loop): Job<{
  messages: MessageWithParts[]
  sample: ProgressSample
  changedFiles: string[] | undefined
  checkpoint: string | undefined
}> {
  const iteration = loop.iteration
  const messages = { kind: "messages", sessionID: loop.sessionID } as const
  const sample = { kind: "sample", loop } as const
  const checkpoint = { kind: "checkpoint", loop, iteration } as const
  const extra: Effect[] = []
  const readFiles = featureOn(loop.settings, "progress-log") && !loop.plan
  if (readFiles) extra.push({ kind: "changed-files", loop })
  // The wait's timer is set first: the reads' own start (git processes spawned) falls within it.
  const wait = { kind: "sleep", ms: loop.settings.settleMs } as const
  const [, read, result, made, ...rest] = yield* all(wait, messages, sample, checkpoint, ...extra)
  yield* checkpointMade(loop, iteration, made)
  // The checkpoint is the work tree at the turn's end: the guard diffs against it (no second read of the tree).
  const atEnd = "made" in made ? made.made.commit : undefined
  return {
    messages: read,
    sample: result,
    changedFiles: readFiles ? (rest[rest.length - 1] as string[]) : undefined,
    checkpoint: atEnd,
  }
}

function* decideAndAct(
  ctx: JobContext,
  loop: Loop,
  facts: {
    turn: Turn
    sample: ProgressSample
    snapshot: DiagnosticSnapshot | undefined
    changedFiles: string[] | undefined
    guard: GuardResult | undefined
  },
  userEpoch: number,
): Job {
  const breakerBefore = loop.breaker.state
  const story = loop.plan ? currentStory(loop.plan) : undefined
  let { decision, update } = decide(loop, {
    ...facts,
    weakened: facts.guard?.weakened,
    replay: facts.guard?.replay,
    now: ctx.now(),
  })
  // Review on: a completion the checks allow waits for the reviewer's verdict.
  const options = reviewOptions(loop.settings)
  let reviewed: { verdict: "approve" | "reject"; reasons: string[] } | null = null
  if (decision.type === "complete" && options) {
    const verdict = yield* review(ctx, loop, options, facts)
    // Cancelled, paused or written to meanwhile: the review decides nothing.
    if (loop.phase !== "deciding" || loop.userEpoch !== userEpoch)
      return loop.phase === "deciding" ? ctx.manager.keepWatching(loop, true) : undefined
    ;({ decision, update } = afterReview(loop, { decision, update }, verdict, options, ctx.now()))
    const said = verdict.verdict
    if (said.kind !== "malformed")
      reviewed = { verdict: said.kind, reasons: said.kind === "reject" ? said.reasons : [] }
  }
  // A completion, or a story done, keeps what it rested on (issue 39).
  if (recordsEvidence(loop, decision, update)) {
    const changedFiles = facts.guard?.changedFiles ?? facts.changedFiles ?? []
    const evidence = claimEvidence({
      snapshot: facts.snapshot,
      changedFiles,
      review: reviewed,
      weakened: facts.guard?.weakened ?? [],
      replay: facts.guard?.replay,
      acceptedByYou: loop.accepted,
    })
    update = withEvidence(loop, decision, update, evidence)
  }
  yield* log("debug", `idle of ${loop.sessionID}: ${decision.type}`, {
    loop: loop.id,
    iteration: loop.iteration,
    decision,
  })
  if (decision.type !== "ignore") {
    ctx.manager.decided(loop, facts.turn, update, decision)
    yield* notify(notice.breakerChanged(breakerBefore, loop.breaker.state, loop.breaker.reason))
    yield* reached("turn.decided")
  }
  if (decision.type !== "ignore" && decision.type !== "wait-for-user") {
    yield* recordIteration(ctx, loop, {
      decision,
      turn: facts.turn,
      snapshot: facts.snapshot,
      story,
      changedFiles: facts.changedFiles,
    })
    // Cancelled or paused while the records were written: nothing more is done.
    if (loop.phase !== "deciding") return
  }
  yield* perform(ctx, loop, decision, facts.turn, userEpoch)
}

function* perform(ctx: JobContext, loop: Loop, decision: Decision, turn: Turn, userEpoch: number): Job {
  switch (decision.type) {
    case "ignore":
      return ctx.manager.keepWatching(loop)
    case "wait-for-user":
      yield* log("info", "turn ended with a request waiting for the user; nothing sent", { loop: loop.id })
      return ctx.manager.waitForUser(loop)
    case "complete":
      ctx.manager.stop(loop, "completed", decision.detail)
      yield* notify(notice.completed(loop, decision.detail))
      yield* consolidate(loop)
      yield* log("info", "loop completed", {
        loop: loop.id,
        iterations: loop.iteration,
        sessions: [...loop.lineage, loop.sessionID],
      })
      return yield* retitleEnded(loop)
    case "stop":
      ctx.manager.stop(loop, decision.reason, decision.detail)
      yield* notify(notice.stopped(loop, decision.reason, decision.detail))
      yield* log("warn", `loop stopped: ${decision.detail}`, { loop: loop.id, reason: decision.reason })
      return yield* retitleEnded(loop)
    case "report-missing-promise":
      ctx.manager.keepWatching(loop)
      return yield* notify(notice.missingPromise(loop))
    case "pause":
      ctx.manager.pause(loop, decision.reason, "loop")
      yield* notify(notice.paused(decision.reason))
      return yield* log("info", "loop paused", { loop: loop.id, reason: decision.reason })
    case "wait":
      ctx.manager.wait(loop, decision.wait, decision.detail)
      yield* notify(notice.waiting(decision.wait, decision.detail))
      yield* log(
        "info",
        `loop waiting (${decision.wait.reason}) until ${new Date(decision.wait.until).toISOString()}`,
        { loop: loop.id },
      )
      return yield* io({ kind: "schedule", loop, until: decision.wait.until })
    case "restart":
      return yield* iterate(ctx, loop, turn, decision, userEpoch)
  }
}
