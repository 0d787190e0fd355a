// The effect kinds that steer jobs themselves: waiting, locks, timers, other jobs, crash points.
// Declared into the kernel's `Effects` (src/effects/kernel.ts); handled in handlers/jobs.ts.
import type { Job } from "../effects/kernel.js"
import type { Loop } from "../loop/loop.js"
import type { CrashPoint } from "../host/faults.js"
import type { JobLock } from "../effects/job-lock.js"

declare module "../effects/kernel.js" {
  interface Effects {
    sleep: { ask: { ms: number }; result: void }
    /** Waits until the lock is this job's (it lets go when the job ends: `locked`). */
    lock: { ask: { lock: JobLock }; result: void }
    // Instant effects (INSTANT): done at once, nothing can happen in between.
    /** A named point of the loop's work, where the e2e tests can kill OpenCode. */
    reached: { ask: { point: CrashPoint }; result: void }
    /** Wakes the loop at `until` (replacing an earlier wake-up). */
    schedule: { ask: { loop: Loop; until: number }; result: void }
    /** Starts another job beside this one. */
    spawn: { ask: { label: string; job: Job }; result: void }
  }
}
