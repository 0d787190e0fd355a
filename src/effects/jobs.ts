// The small jobs every other job uses: a toast, a log line, a named point for the e2e tests.
import type { CrashPoint } from "../host/faults.js"
import type { Notice } from "../host/notice.js"
import type { LogLevel } from "../host/port.js"
import type { Effect, Job } from "./kernel.js"

/** The effects done at once, nothing can happen in between (the simulator does them on the spot). */
export const INSTANT: ReadonlySet<Effect["kind"]> = new Set(["toast", "log", "reached", "schedule", "spawn"])

export function* notify(notice: Notice | undefined): Job {
  if (notice) yield { kind: "toast", notice }
}

export function* log(level: LogLevel, message: string, extra?: Record<string, unknown>): Job {
  yield { kind: "log", level, message, ...(extra ? { extra } : {}) }
}

export function* reached(point: CrashPoint): Job {
  yield { kind: "reached", point }
}
