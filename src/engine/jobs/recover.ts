// After OpenCode (re)starts: the loops that were active were taken back from .opencode/ralph-loop/
// when the plugin loaded (LoopManager.adoptAll, before any hook acted). Here, a moment later, each
// goes on: a loop whose session is gone is closed and reported; the others go on from the same
// iteration with the same counts, from where their session shows they stopped (decided by
// src/loop/recovery.ts) — or wait for /ralph-resume when resumeOnStart is "ask".
import { relative } from "node:path"
import type { Session } from "@opencode-ai/sdk"
import type { Loop } from "../../loop/loop.js"
import { continuePrompt, freshSessionPrompt, loopRules, planFirstPrompt, sessionTitle } from "../../loop/prompts.js"
import { decideRecovery } from "../../loop/recovery.js"
import { readTurn, type MessageWithParts } from "../../loop/read-turn.js"
import type { LoadResult } from "../../store/loop-store.js"
import { io, type Job } from "../../effects/kernel.js"
import { log, notify } from "../../effects/jobs.js"
import * as notice from "../../loop/notices.js"
import type { JobContext } from "./context.js"
import { fail } from "./fail.js"
import { goOn } from "./go-on.js"
import { progressLines } from "./handoff.js"
import { prompt } from "./prompt.js"
import { isEmpty, iterate } from "./restart.js"
import { retireAll } from "./retire.js"
import { turnEnded } from "./turn-ended.js"
import { closeReview } from "../../review/review-job.js"
import { reviewOptions } from "../../review/settings.js"

/**
 * Gives a TUI that starts with OpenCode a moment to connect before the first toast.
 * @public bench/util.ts reads it from dist/ (knip cannot see that import).
 */
export const RECOVERY_GRACE_MS = 1_000

/** Where a loop was when it was taken back: anything that happened to it since is newer than what recovery reads. */
type TakenBack = Pick<Loop, "userEpoch" | "busyEpoch" | "iteration" | "sessionID" | "phase">

export function* recoverAll(
  ctx: JobContext,
  adopted: readonly Loop[],
  { problems, owned, loops }: Pick<LoadResult, "problems" | "owned" | "loops">,
): Job {
  const takenBack = whereTakenBack(adopted)
  yield* io({ kind: "sleep", ms: RECOVERY_GRACE_MS })
  for (const id of owned)
    yield* log("info", "a loop of this project is run by another live OpenCode process; left to it", { loop: id })
  for (const problem of problems) {
    const file = relative(ctx.directory, problem.file)
    yield* log("error", `state file ${file} ${problem.message}`)
    yield* notify({
      variant: "error",
      title: "Ralph · state file problem",
      message: `${file} ${problem.message}.`,
      duration: 20_000,
    })
  }
  // A loop that ended while an old session of it still waited to be archived and deleted (OpenCode
  // died in between): that session is archived and deleted now, or it would be left for good.
  for (const loop of loops) {
    if (loop.phase === "stopped" && loop.retiring.length > 0)
      yield { kind: "spawn", label: `retiring of ${loop.id}`, job: retireAll(ctx, loop) }
    // A review OpenCode's restart cut off: its session goes (the claim is judged again).
    if (loop.review?.session !== undefined)
      yield {
        kind: "spawn",
        label: `review session of ${loop.id}`,
        job: closeReview(ctx, loop, reviewOptions(loop.settings)?.keep ?? false),
      }
  }
  yield* goOnAll(ctx, adopted, takenBack, "OpenCode restarted")
}

/** Where each loop was when it was taken back. */
export const whereTakenBack = (adopted: readonly Loop[]): Map<Loop, TakenBack> =>
  new Map(
    adopted.map((loop): [Loop, TakenBack] => [
      loop,
      {
        userEpoch: loop.userEpoch,
        busyEpoch: loop.busyEpoch,
        iteration: loop.iteration,
        sessionID: loop.sessionID,
        phase: loop.phase,
      },
    ]),
  )

/**
 * Each loop taken back goes on (a loop whose session is gone is closed), or waits for /ralph-resume
 * (resumeOnStart "ask"). `cause`: why it was taken back, for the user ("OpenCode restarted").
 */
export function* goOnAll(
  ctx: JobContext,
  adopted: readonly Loop[],
  takenBack: ReadonlyMap<Loop, TakenBack>,
  cause: string,
): Job {
  for (const loop of adopted) {
    // Cancelled (or replaced) meanwhile.
    if (loop.phase === "stopped") continue
    const exists = yield* io({ kind: "session-exists", sessionID: loop.sessionID })
    if (exists === false) {
      ctx.manager.stop(loop, "session-deleted", "its session no longer exists")
      yield* notify({
        variant: "warning",
        title: "Ralph · loop closed",
        message: `The loop "${loop.task.split("\n")[0]}" was active, but its session no longer exists; it is closed.`,
      })
      continue
    }
    yield* log("info", `loop recovered after ${cause}`, {
      loop: loop.id,
      iteration: loop.iteration,
      retries: loop.retries,
      phase: loop.phase,
    })
    if (ctx.settings().resumeOnStart === "ask") {
      // Paused until /ralph-resume, but its old sessions go now (recover below does it for the rest).
      if (loop.retiring.length > 0) yield { kind: "spawn", label: `retiring of ${loop.id}`, job: retireAll(ctx, loop) }
      if (loop.phase === "paused") yield* notify(notice.paused(`${cause} during the loop (resumeOnStart is "ask")`))
      continue
    }
    yield* notify(
      notice.iterationStarted(
        loop,
        `Loop recovered after ${cause}: iteration ${loop.iteration}, ${loop.retries} ` +
          `restart${loop.retries === 1 ? "" : "s"} so far.`,
      ),
    )
    yield { kind: "spawn", label: `recovery of ${loop.id}`, job: recover(ctx, loop, takenBack.get(loop) ?? loop) }
  }
}

/** One recovered loop goes on from where its session shows it stopped — unless it went on since it was taken back. */
function* recover(ctx: JobContext, loop: Loop, { userEpoch, busyEpoch, iteration, sessionID, phase }: TakenBack): Job {
  try {
    if (loop.retiring.length > 0) yield { kind: "spawn", label: `retiring of ${loop.id}`, job: retireAll(ctx, loop) }
    // Taken back paused, it goes on only by a resume — which, if one came meanwhile (the control
    // channel acts as soon as the plugin loads), is in charge of it: recovery must not go on as well.
    if (loop.phase === "paused" || phase === "paused") return
    if (loop.phase === "waiting" && loop.wait) return yield* io({ kind: "schedule", loop, until: loop.wait.until })
    const idle = yield* io({ kind: "is-idle", sessionID: loop.sessionID })
    const messages = idle ? yield* io({ kind: "messages", sessionID: loop.sessionID }) : []
    // Cancelled, paused, or gone on since it was taken back (a turn started, or ended and was
    // decided): the loop is where the hooks put it, and what was read is out of date. (A restart
    // that was under way is finished whatever its old session does — unless the user wrote.)
    if (loop.phase !== "running" && loop.phase !== "restarting") return
    if (
      loop.sessionID !== sessionID ||
      loop.iteration !== iteration ||
      (loop.phase === "running" && loop.busyEpoch !== busyEpoch)
    )
      return
    // The user wrote meanwhile: their turn is the one watched.
    if (loop.userEpoch !== userEpoch) return ctx.manager.keepWatching(loop, true)
    yield* goOnFromSession(ctx, loop, { idle, messages }, userEpoch)
  } catch (error) {
    yield* fail(ctx, loop, "could not resume the loop after OpenCode restarted", error)
  }
}

/**
 * The loop goes on from where its session shows it stopped (after a restart of OpenCode, or when
 * /ralph-resume ends the wait that resumeOnStart "ask" began).
 */
export function* goOnFromSession(
  ctx: JobContext,
  loop: Loop,
  { idle, messages }: { idle: boolean; messages: MessageWithParts[] },
  userEpoch: number,
): Job {
  const turn = readTurn(messages)
  const recovery = decideRecovery(loop, { idle, turn, messageCount: messages.length })
  switch (recovery.type) {
    case "watch":
      return ctx.manager.keepWatching(loop, true)
    case "finish-restart": {
      ctx.manager.lastTurnRead(loop, turn)
      if (!loop.restart) return
      const restart = loop.restart
      if (restart.sessionID === undefined) ctx.manager.sessionCreated(loop, yield* createdBeforeCrash(ctx, loop))
      return yield* iterate(ctx, loop, turn, restart, userEpoch)
    }
    case "reopen":
      return yield* reopen(ctx, loop, recovery.emptySession, userEpoch)
    case "decide":
      if (recovery.again) ctx.manager.forgetDecision(loop)
      if (loop.phase === "deciding" || ctx.manager.claim(loop)) yield* turnEnded(ctx, loop)
      return
    case "resume":
      ctx.manager.lastTurnRead(loop, turn)
      return yield* goOn(
        ctx,
        loop,
        { then: "resume" },
        userEpoch,
        "OpenCode restarted while you were working, and your last turn was cut off. Continue the task from where " +
          "you stopped.",
      )
  }
}

/**
 * The fresh session a restart created just before OpenCode died, before its id reached the state
 * file: still empty, titled for the next iteration, made since this iteration began.
 */
function* createdBeforeCrash(ctx: JobContext, loop: Loop): Job<string | undefined> {
  const title = sessionTitle(loop, loop.iteration + 1)
  let sessions: Session[]
  try {
    sessions = yield* io({ kind: "sessions" })
  } catch {
    return undefined
  }
  const candidates = sessions.filter(
    (s) => s.title === title && !s.parentID && s.time.created >= loop.iterationStartedAt && !ctx.manager.get(s.id),
  )
  for (const session of candidates) if (yield* isEmpty(session.id)) return session.id
  return undefined
}

/** The iteration's prompt never reached its session (OpenCode stopped in between): send it again. */
function* reopen(ctx: JobContext, loop: Loop, emptySession: boolean, userEpoch: number): Job {
  const previous = loop.lineage.at(-1)
  const summary =
    emptySession && previous ? ((yield* io({ kind: "read-summary", loop, sessionID: previous })) ?? "") : undefined
  const progress = yield* progressLines(loop)
  const text = !emptySession
    ? continuePrompt(loop, loop.iteration, undefined, undefined, [], progress)
    : summary !== undefined
      ? freshSessionPrompt(loop, loop.iteration, summary)
      : `${loop.plan ? planFirstPrompt(loop, progress) : loop.task}\n\n${loopRules(loop.settings, loop.plan)}`
  // Cancelled or paused while the files were read.
  if (loop.phase === "stopped" || loop.phase === "paused") return
  if (loop.needsInstruction) ctx.manager.instructionGiven(loop)
  ctx.manager.promptSent(loop, ctx.now())
  yield* prompt(ctx, loop, loop.sessionID, text, loop.lastTurn, userEpoch)
}
