// The next iteration, by the strategy: `continue` re-prompts the same session; `recreate` and
// `fresh` summarize, write the handoff, and go on in a new session (`fresh` also whatever the
// strategy, after a context overflow). Every step that waits re-checks the loop afterwards: the
// user may have cancelled, paused or typed meanwhile.
import { relative } from "node:path"
import { buildHandoff } from "../../loop/handoff.js"
import type { Loop, PendingRestart } from "../../loop/loop.js"
import { continuePrompt, freshSessionPrompt, sessionTitle } from "../../loop/prompts.js"
import type { Turn } from "../../loop/turn.js"
import { io, log, notify, reached, type Job } from "../effects.js"
import * as notice from "../../loop/notices.js"
import type { JobContext } from "./context.js"
import { gotchaLines, handoffFacts, progressLines, summarize } from "./handoff.js"
import { prompt, stillRestarting } from "./prompt.js"
import { retire } from "./retire.js"

export function* iterate(ctx: JobContext, loop: Loop, turn: Turn, restart: PendingRestart, userEpoch: number): Job {
  if (!ctx.manager.beginRestart(loop, restart)) return
  yield* reached("restart.begun")
  if (loop.settings.strategy === "continue" && !restart.fresh)
    yield* continueInPlace(ctx, loop, turn, restart, userEpoch)
  else yield* restartFresh(ctx, loop, turn, restart, userEpoch)
}

function* continueInPlace(
  ctx: JobContext,
  loop: Loop,
  turn: Turn,
  { note, feedback }: PendingRestart,
  userEpoch: number,
): Job {
  const gotchas = yield* gotchaLines(loop)
  const progress = yield* progressLines(loop)
  if (!stillRestarting(ctx, loop, userEpoch)) return
  // Counted before the prompt is sent, so the busy status it causes is seen as this loop's.
  if (!ctx.manager.nextIteration(loop, loop.sessionID, ctx.now())) return
  if (
    !(yield* prompt(
      ctx,
      loop,
      loop.sessionID,
      continuePrompt(loop, loop.iteration, note, feedback, gotchas, progress),
      turn,
      userEpoch,
    ))
  )
    return
  yield* notify(notice.iterationStarted(loop, "Continuing in the same session."))
}

function* restartFresh(
  ctx: JobContext,
  loop: Loop,
  turn: Turn,
  { note, feedback }: PendingRestart,
  userEpoch: number,
): Job {
  const retireOld = loop.settings.strategy === "recreate"
  const oldSessionID = loop.sessionID
  const nextIteration = loop.iteration + 1
  // The decision to restart is on disk before anything of the restart happens: after a crash the
  // restart is finished (its summary reused, its session found), never the turn decided again —
  // that would read the plugin's own summary as a context overflow and leave the new session behind.
  yield* io({ kind: "persisted", loop })
  if (!stillRestarting(ctx, loop, userEpoch)) return
  const { summary: modelSummary, source } = yield* summarize(ctx, loop, turn)
  yield* reached("summarize.after")
  if (!stillRestarting(ctx, loop, userEpoch)) return
  const summary = buildHandoff(modelSummary, yield* handoffFacts(loop, nextIteration))
  const summaryFile = yield* io({
    kind: "write-summary",
    record: { loop, sessionID: oldSessionID, nextIteration, summary, source, at: new Date(ctx.now()) },
  })
  yield* reached("summary.written")
  if (!stillRestarting(ctx, loop, userEpoch)) return
  const sessionID = yield* freshSession(ctx, loop, nextIteration)
  yield* reached("session.created")
  const prompted = yield* moveInto(
    ctx,
    loop,
    sessionID,
    freshSessionPrompt(loop, nextIteration, summary, note, feedback),
    turn,
    userEpoch,
    retireOld,
  )
  if (prompted) {
    yield* notify(notice.iterationStarted(loop, `Fresh session; handoff in ${relative(ctx.directory, summaryFile)}.`))
    yield* log("info", "loop restarted in a fresh session", {
      loop: loop.id,
      from: oldSessionID,
      to: sessionID,
      iteration: loop.iteration,
    })
  }
  // Ended meanwhile (cancelled): nothing of the move is left half done.
  if (loop.phase === "stopped") yield* dropUnused(ctx, loop, sessionID)
  // The old session goes once the loop has moved out of it — also when the loop ended right then.
  if (retireOld && loop.retiring.includes(oldSessionID) && (prompted || loop.phase === "stopped"))
    yield* retire(ctx, loop, oldSessionID)
}

/**
 * The loop moves into its fresh session and prompts there; false when it stopped, paused or was overtaken on the way.
 */
function* moveInto(
  ctx: JobContext,
  loop: Loop,
  sessionID: string,
  text: string,
  turn: Turn,
  userEpoch: number,
  retireOld: boolean,
): Job<boolean> {
  // Cancelled or overtaken meanwhile: the TUI is not moved.
  if (!stillRestarting(ctx, loop, userEpoch)) return false
  try {
    yield* io({ kind: "select-session", sessionID })
  } catch (error) {
    yield* log("warn", "could not point the TUI at the new session", { session: sessionID, error: String(error) })
  }
  yield* reached("session.selected")
  const untouched = yield* isEmpty(sessionID)
  if (!stillRestarting(ctx, loop, userEpoch)) return false
  // The user wrote in the new session, or started a loop of their own there, before the loop moved
  // in: the session is theirs; the loop waits for them.
  if (!untouched || !ctx.manager.nextIteration(loop, sessionID, ctx.now(), retireOld)) {
    ctx.manager.pause(
      loop,
      "you wrote in the session the loop was moving to; /ralph-resume starts it in another",
      "person",
    )
    yield* notify(
      notice.paused(
        "you wrote in the session the loop was moving to — /ralph-resume starts the next iteration in a new one",
      ),
    )
    return false
  }
  return yield* prompt(ctx, loop, sessionID, text, turn, userEpoch)
}

/**
 * The session a restart created for a loop that then ended before moving in: still empty and no
 * loop's, it is deleted (a paused loop keeps it: /ralph-resume moves into it).
 */
function* dropUnused(ctx: JobContext, loop: Loop, sessionID: string): Job {
  if (loop.sessionID === sessionID || ctx.manager.get(sessionID) || !(yield* isEmpty(sessionID))) return
  try {
    yield* io({ kind: "delete-session", sessionID })
    yield* log("info", "the loop ended before moving into its new session; the empty session is deleted", {
      loop: loop.id,
      session: sessionID,
    })
  } catch (error) {
    yield* log("warn", "could not delete the loop's unused new session; it is kept", {
      session: sessionID,
      error: String(error),
    })
  }
}

/**
 * The restart's fresh session: the one it created before it was cut short (by a crash, or by the
 * user typing), if that is still empty; else a new one, on disk before anything happens in it.
 */
function* freshSession(ctx: JobContext, loop: Loop, iteration: number): Job<string> {
  const created = loop.restart?.sessionID
  if (created && (yield* isEmpty(created))) return created
  const session = yield* io({ kind: "create-session", title: sessionTitle(loop, iteration) })
  ctx.manager.sessionCreated(loop, session.id)
  yield* io({ kind: "persisted", loop })
  return session.id
}

export function* isEmpty(sessionID: string): Job<boolean> {
  try {
    return (yield* io({ kind: "messages", sessionID })).length === 0
  } catch {
    return false
  }
}
