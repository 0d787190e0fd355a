// What a control act does to a loop, one function per act, shared by the chat commands
// (/ralph-pause, /ralph-resume, /cancel-ralph, /ralph-hint, /ralph-rollback: commands/control.ts)
// and the control channel (channel.ts): the state changes through LoopManager, a rollback through
// the runner's job. `done` false: refused, `message` says why.
import type { RalphContext } from "../engine/context.js"
import type { Loop, PauseCause } from "../loop/loop.js"
import { resumeByHand } from "../loop/resume.js"
import { rollback } from "./rollback.js"

export interface ActResult {
  done: boolean
  title: string
  message: string
  variant?: "info" | "success" | "warning" | "error"
}

const ended = (loop: Loop): ActResult => ({
  done: false,
  title: "Ralph · loop ended",
  message: `The Ralph loop ${loop.id} has ended (${loop.stopReason ?? "stopped"}).`,
})

/** `via`: what asked, as the loop's state says it ("/ralph-pause", "ralph-loop pause"). */
export function pauseLoop(ctx: RalphContext, loop: Loop, via: string, cause: PauseCause = "person"): ActResult {
  if (loop.phase === "stopped") return ended(loop)
  if (loop.phase === "paused")
    return { done: true, title: "Ralph · paused", message: "The loop is already paused. /ralph-resume goes on." }
  ctx.manager.pause(loop, `paused with ${via}`, cause)
  return {
    done: true,
    title: "Ralph · paused",
    message:
      `The loop is paused at iteration ${loop.iteration}; nothing is sent. /ralph-resume goes on, ` +
      `/cancel-ralph ends it.`,
    variant: "warning",
  }
}

/**
 * `here`: asked in the loop's own session by a chat command, whose turn is still to end — the loop
 * goes on when it does. From an earlier session of the loop or from outside the chat, no turn of the
 * loop's session will end: it goes on now.
 */
export function resumeLoop(ctx: RalphContext, loop: Loop, here: boolean): ActResult {
  if (loop.phase === "stopped") return ended(loop)
  if (loop.phase !== "paused" && loop.phase !== "waiting")
    return { done: false, title: "Ralph · running", message: `The loop is not paused (it is ${loop.phase}).` }
  const { how, breaker } = resumeByHand(loop)
  ctx.manager.resumedByHand(loop, how, breaker, ctx.now(), here)
  if (!here) ctx.runner.resumeNow(loop, how)
  return {
    done: true,
    title: "Ralph · resumed",
    message: here
      ? `The loop goes on at iteration ${loop.iteration} once this reply is done.`
      : `The loop goes on at iteration ${loop.iteration} now.`,
  }
}

/**
 * The loop's session's continuations stop too: the cancelled loop's last turn is not continued. So do
 * those of `typedIn`, the session a chat command was typed in (it may be an earlier one of the loop's).
 */
export function cancelLoop(ctx: RalphContext, loop: Loop, via: string, typedIn?: string): ActResult {
  if (typedIn !== undefined) ctx.continuations.cancel(typedIn)
  if (loop.phase === "stopped") return ended(loop)
  ctx.continuations.cancel(loop.sessionID)
  ctx.manager.stop(loop, "cancelled", `cancelled with ${via}`)
  ctx.runner.ended(loop)
  ctx.api.log("info", "loop cancelled by the user", { loop: loop.id, iteration: loop.iteration, via })
  return {
    done: true,
    title: "Ralph · cancelled",
    message: `The Ralph loop ended at iteration ${loop.iteration}. Nothing more will be sent.`,
  }
}

export function hintLoop(ctx: RalphContext, loop: Loop, text: string): ActResult {
  if (loop.phase === "stopped") return ended(loop)
  if (!text) return { done: false, title: "Ralph · no hint", message: "Usage: /ralph-hint <text>", variant: "warning" }
  ctx.manager.addHint(loop, text)
  return {
    done: true,
    title: "Ralph · hint queued",
    message: `The next prompt of the loop will carry your hint (once): ${text}`,
  }
}

/**
 * The work tree back to a checkpoint of `loop` (live or ended); refused under a turn (src/checkpoints/rollback-job.ts).
 * Git's failures are said, not thrown.
 */
export async function rollbackLoop(ctx: RalphContext, loop: Loop, args: string): Promise<ActResult> {
  return rollback(ctx, loop, args).catch((error: unknown) => ({
    done: false,
    title: "Ralph · rollback failed",
    message: `The rollback did not finish: ${String(error)}`,
    variant: "error" as const,
  }))
}
