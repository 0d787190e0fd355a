// The calls-per-hour limit of seed 002: every prompt and summary the plugin sends counts; the
// window starts at the first call and resets `windowMinutes` later.
import { z } from "zod"

export const callWindowSchema = z.object({ startedAt: z.number().optional(), count: z.int().min(0) })
export type CallWindow = z.infer<typeof callWindowSchema>

export interface CallLimits {
  maxCallsPerHour: number
  rateLimitWindowMinutes: number
}

export const emptyCallWindow = (): CallWindow => ({ count: 0 })

const windowEnds = (window: CallWindow, limits: CallLimits): number =>
  (window.startedAt ?? 0) + limits.rateLimitWindowMinutes * 60_000

/** The window as it stands at `now` (a window whose time is up starts over). */
export function current(window: CallWindow, limits: CallLimits, now: number): CallWindow {
  if (window.startedAt === undefined || now >= windowEnds(window, limits)) return { count: 0 }
  return window
}

/** undefined when `calls` more calls may go now; otherwise the time the window resets. */
export function blockedUntil(window: CallWindow, limits: CallLimits, now: number, calls = 1): number | undefined {
  const live = current(window, limits, now)
  return live.count + calls <= limits.maxCallsPerHour ? undefined : windowEnds(live, limits)
}

export function recordCall(window: CallWindow, limits: CallLimits, now: number): CallWindow {
  const live = current(window, limits, now)
  return { startedAt: live.startedAt ?? now, count: live.count + 1 }
}
