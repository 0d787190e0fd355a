// Sending a prompt of the loop — once the state that counts it is on disk, so that after a crash
// recovery finds the prompt in the session or knows it must send it again.
import type { Loop } from "../../loop/loop.js"
import type { Turn } from "../../loop/turn.js"
import { io, reached, type Job } from "../effects.js"
import type { JobContext } from "./context.js"

/**
 * False: not sent, because the loop was stopped or paused, the user wrote since `userEpoch` (when
 * the job that sends it began), or the session went to work while the state was being written —
 * that turn is watched instead.
 */
export function* prompt(
  ctx: JobContext,
  loop: Loop,
  sessionID: string,
  text: string,
  turn: Turn | undefined,
  userEpoch: number,
): Job<boolean> {
  const { busyEpoch } = loop
  yield* io({ kind: "persisted", loop })
  if (loop.phase !== "running" || loop.userEpoch !== userEpoch || loop.busyEpoch !== busyEpoch) return false
  yield* reached("iteration.saved")
  ctx.manager.recordCall(loop, ctx.now())
  ctx.manager.promptGoingOut(loop)
  yield* io({ kind: "prompt", loop, sessionID, input: { text, agent: turn?.agent, model: turn?.model } })
  yield* reached("prompt.sent")
  ctx.manager.promptDelivered(loop)
  return true
}

/** Still restarting, and the user has not written meanwhile (then their turn wins: keep watching). */
export function stillRestarting(ctx: JobContext, loop: Loop, userEpoch: number): boolean {
  if (loop.phase !== "restarting") return false
  if (loop.userEpoch === userEpoch) return true
  ctx.manager.keepWatching(loop, true)
  return false
}
