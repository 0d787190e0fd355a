// The effects a job of the loop asks for: the kernel (src/effects/kernel.ts) with every kind the
// features declare into it (each feature's effects.ts, and effects-*.ts here for the jobs, OpenCode's
// calls, the work tree and the checks), and the small jobs every other job uses.
import type { Effect, Job } from "../effects/kernel.js"
import type { LogLevel } from "../host/port.js"
import type { CrashPoint } from "../host/faults.js"
import type { Notice } from "../loop/notices.js"

export type { Effect, Handlers, Job } from "../effects/kernel.js"
export { all, handle, io } from "../effects/kernel.js"

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
