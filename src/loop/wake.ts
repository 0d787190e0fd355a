// A wait is over (its timer fired): the breaker half-opens, the call window has reset, or the
// back-off is done. What happens next depends on the session being idle and on the call window.
import { afterCooldown, type Breaker } from "./breaker.js"
import { blockedUntil } from "./call-window.js"
import { callsToGoOn, decideGoOn, type GoOn } from "./go-on.js"
import type { Loop, Wait } from "./loop.js"

/**
 * A loop's wake-up timer stands only while the loop waits: any change that takes it out of waiting
 * (a pause, a stop, a resume, a rollback's pause) ends the timer, before anything else is done.
 */
export const keepsTimer = (loop: Loop): boolean => loop.phase === "waiting"

/** How long to wait before looking again when a turn is under way at wake-up (a control command's, say). */
export const LOOK_AGAIN_MS = 2_000

export type Wake =
  /** The loop is no longer waiting (resumed, cancelled or paused meanwhile). */
  | { type: "stale" }
  | { type: "look-again"; until: number }
  | { type: "wait"; wait: Wait; detail: string }
  | { type: "go-on"; goOn: GoOn }

export function decideWake(
  loop: Loop,
  { now, idle }: { now: number; idle: boolean },
): { breaker: Breaker; next: Wake } {
  const wait = loop.wait
  if (loop.phase !== "waiting" || !wait) return { breaker: loop.breaker, next: { type: "stale" } }
  const breaker = wait.reason === "breaker" ? afterCooldown(loop.breaker, loop.settings, now) : loop.breaker
  if (!idle) return { breaker, next: { type: "look-again", until: now + LOOK_AGAIN_MS } }
  const goOn = decideGoOn(loop, wait, now)
  if (goOn.type !== "stop") {
    const blocked = blockedUntil(loop.calls, loop.settings, now, callsToGoOn(loop, wait))
    if (blocked !== undefined)
      return {
        breaker,
        next: {
          type: "wait",
          wait: { ...wait, reason: "call-limit", until: blocked },
          detail: `${loop.settings.maxCallsPerHour} calls per window reached (maxCallsPerHour)`,
        },
      }
  }
  return { breaker, next: { type: "go-on", goOn } }
}
