// Going on after a wait or a resume, and waking from a wait: the pure rules in src/loop/go-on.ts
// and src/loop/wake.ts decide; these jobs do what they decided.
import { decideGoOn, type GoOn, type GoOnHow, type ResumeHow } from "../../loop/go-on.js"
import type { Loop } from "../../loop/loop.js"
import { resumePrompt } from "../../loop/prompts.js"
import { readTurn } from "../../loop/read-turn.js"
import { decideWake } from "../../loop/wake.js"
import { io, notify, type Job } from "../effects.js"
import * as notice from "../../loop/notices.js"
import type { JobContext } from "./context.js"
import { retitleEnded } from "./ended.js"
import { fail } from "./fail.js"
import { progressLines } from "./handoff.js"
import { prompt } from "./prompt.js"
import { goOnFromSession } from "./recover.js"
import { iterate } from "./restart.js"

export const RESUMED = "The user resumed the loop. Continue the task from where you stopped."

/** After a wait or a resume: the same iteration resumes, or the next one starts. `userEpoch`: when the job began. */
export function* goOn(ctx: JobContext, loop: Loop, how: GoOnHow, userEpoch: number, why?: string): Job {
  yield* act(ctx, loop, decideGoOn(loop, how, ctx.now()), userEpoch, why)
}

function* act(ctx: JobContext, loop: Loop, goOn: GoOn, userEpoch: number, why?: string): Job {
  const turn = loop.lastTurn ?? { texts: [] }
  switch (goOn.type) {
    case "none":
      return
    case "stop":
      ctx.manager.stop(loop, goOn.breach.reason, goOn.breach.detail)
      yield* notify(notice.stopped(loop, goOn.breach.reason, goOn.breach.detail))
      return yield* retitleEnded(loop)
    case "resume": {
      const progress = yield* progressLines(loop)
      if (loop.phase === "stopped" || loop.phase === "paused") return
      ctx.manager.promptSent(loop, ctx.now())
      if (!(yield* prompt(ctx, loop, loop.sessionID, resumePrompt(loop, why, progress), turn, userEpoch))) return
      return yield* notify(notice.iterationStarted(loop, why ? "Resumed." : "Resuming after the provider's limit."))
    }
    case "next":
      return yield* iterate(ctx, loop, turn, { fresh: goOn.fresh }, userEpoch)
  }
}

/** A wait is over: its timer fired. */
export function* wake(ctx: JobContext, loop: Loop): Job {
  if (loop.phase !== "waiting") return
  const { userEpoch } = loop
  try {
    const idle = yield* io({ kind: "is-idle", sessionID: loop.sessionID })
    const before = loop.breaker.state
    const { breaker, next } = decideWake(loop, { now: ctx.now(), idle })
    ctx.manager.cooledDown(loop, breaker)
    yield* notify(notice.breakerChanged(before, loop.breaker.state))
    switch (next.type) {
      case "stale":
        return
      case "look-again":
        return yield* io({ kind: "schedule", loop, until: next.until })
      case "wait":
        ctx.manager.wait(loop, next.wait, next.detail)
        yield* notify(notice.waiting(next.wait, next.detail))
        return yield* io({ kind: "schedule", loop, until: next.wait.until })
      case "go-on":
        return yield* act(ctx, loop, next.goOn, userEpoch)
    }
  } catch (error) {
    yield* fail(ctx, loop, "could not continue the loop after waiting", error)
  }
}

/** /ralph-resume typed in another session of the loop: go on now, unless a turn is still to come. */
export function* resumeNow(ctx: JobContext, loop: Loop, how: ResumeHow): Job {
  const { userEpoch } = loop
  try {
    if (!(yield* io({ kind: "is-idle", sessionID: loop.sessionID }))) return
    // Paused between a prompt and its turn (the last prompt has no answer yet): that prompt is still
    // to run, and is the turn watched.
    const messages = yield* io({ kind: "messages", sessionID: loop.sessionID })
    if (messages.length > 0 && readTurn(messages).lastAssistantID === undefined) return
    if (how.recover) return yield* goOnFromSession(ctx, loop, { idle: true, messages }, userEpoch)
    yield* goOn(ctx, loop, how, userEpoch, RESUMED)
  } catch (error) {
    yield* fail(ctx, loop, "could not resume the loop", error)
  }
}
