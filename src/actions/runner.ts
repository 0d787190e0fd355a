// LoopRunner: where the hooks hand work to the loop's jobs (src/actions/jobs/). Each entry point
// starts a job on the host — the Interpreter in production, the simulated OpenCode in the fuzzer —
// so both run the very same steps.
import type { ResumeHow } from "../loop/go-on.js"
import type { Loop } from "../loop/loop.js"
import type { CrashPoint } from "../opencode/faults.js"
import type { LoadResult } from "../store/loop-store.js"
import { all, type Job } from "./effects.js"
import type { JobContext } from "./jobs/context.js"
import { resumeNow, wake } from "./jobs/go-on.js"
import { recoverAll } from "./jobs/recover.js"
import { turnEnded } from "./jobs/turn-ended.js"

/** What runs the jobs: it does their effects, keeps their timers, and knows what is on disk. */
export interface JobHost {
  /** Runs `job` to its end, in the background. */
  start(label: string, job: Job): void
  /** Resolves once the loop's state as it is now has reached disk. */
  persisted(loop: Loop): Promise<void>
  /** A named point of the loop's work, where the e2e tests can kill OpenCode. */
  reached(point: CrashPoint): void
  cancelTimer(loop: Loop): void
  dispose(): void
}

export class LoopRunner {
  constructor(
    private readonly host: JobHost,
    private readonly ctx: JobContext,
  ) {}

  /** A turn of `loop` ended (its idle was claimed by the manager). */
  onTurnEnded(loop: Loop): void {
    this.host.start(`turn end of ${loop.id}`, turnEnded(this.ctx, loop))
  }

  /** The loop's wait is over (its timer fired). */
  wake(loop: Loop): void {
    this.host.start(`wake of ${loop.id}`, wake(this.ctx, loop))
  }

  /** /ralph-resume from another session of the loop: go on now. */
  resumeNow(loop: Loop, how: ResumeHow): void {
    this.host.start(`resume of ${loop.id}`, resumeNow(this.ctx, loop, how))
  }

  /** After OpenCode (re)started: the loops taken back from disk go on (a moment later); ended ones finish their retirements. */
  recoverAll(adopted: readonly Loop[], found: Pick<LoadResult, "problems" | "owned" | "loops">): void {
    this.host.start("recovery", recoverAll(this.ctx, adopted, found))
  }

  /** Remembers HEAD and the work tree at the start of a loop (changed files, the progress baseline). */
  captureStart(loop: Loop): void {
    const manager = this.ctx.manager
    this.host.start(`start of ${loop.id}`, (function* () {
      const [head, sample] = yield* all({ kind: "head" }, { kind: "sample", loop })
      manager.startCaptured(loop, head, sample)
    })())
  }

  persisted(loop: Loop): Promise<void> {
    return this.host.persisted(loop)
  }

  reached(point: CrashPoint): void {
    this.host.reached(point)
  }

  /** Ends the timer of a loop that stopped or was resumed by the user. */
  cancelTimer(loop: Loop): void {
    this.host.cancelTimer(loop)
  }

  dispose(): void {
    this.host.dispose()
  }
}
