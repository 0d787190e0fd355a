// LoopRunner: where the hooks hand work to the loop's jobs (src/engine/jobs/). Each entry point
// starts a job on the host — the Interpreter in production, the simulated OpenCode in the fuzzer —
// so both run the very same steps.
import type { ResumeHow } from "../loop/go-on.js"
import type { Loop } from "../loop/loop.js"
import type { CrashPoint } from "../host/faults.js"
import type { LoadResult } from "../store/loop-store.js"
import { all, io, type Job } from "../effects/kernel.js"
import type { JobContext } from "./jobs/context.js"
import { retitleEnded } from "./jobs/ended.js"
import { announce } from "../notify/announce-job.js"
import { settleStaged } from "../memory/staged-job.js"
import { startCheckpoint } from "../checkpoints/checkpoint-job.js"
import { initialChecks } from "./jobs/checks.js"
import { featureOn } from "../config/features.js"
import type { Settings } from "../config/schema.js"
import { notificationFor } from "../notify/notification.js"
import { reportFile } from "../store/report.js"
import { resumeNow, wake } from "./jobs/go-on.js"
import { keepsTimer } from "../loop/wake.js"
import { recoverAll } from "./jobs/recover.js"
import { takeBack } from "./jobs/take-back.js"
import { turnEnded } from "./jobs/turn-ended.js"
import { afterIdle } from "../continuations/continue-session-job.js"
import { planTurnEnded } from "../plan/plan-turn.js"
import { judgeToolClaim, type JudgedClaim } from "./jobs/claim.js"
import { rollback, type RollbackResult } from "../checkpoints/rollback-job.js"
import type { PlanRequest } from "../plan/requests.js"

/** What runs the jobs: it does their effects, keeps their timers, and knows what is on disk. */
export interface JobHost {
  /** Runs `job` to its end, in the background. */
  start(label: string, job: Job): void
  /**
   * Starts the job `job()` makes after `ms` (now when `ms` is 0), in the background. Nothing but a
   * timer is held meanwhile (the simulator runs it as a job whose first effect is the sleep).
   */
  startAfter(ms: number, label: string, job: () => Job): void
  /**
   * Runs `job`; resolves when it has ended. (The simulator resolves at once: its jobs advance only
   * when the scenario steps them, so anything may still happen before this one ends.)
   */
  runNow(label: string, job: Job): Promise<void>
  /** Resolves once the loop's state as it is now has reached disk. */
  persisted(loop: Loop): Promise<void>
  /** A named point of the loop's work, where the e2e tests can kill OpenCode. */
  reached(point: CrashPoint): void
  /** Ends the loop's wake-up timer, if it has one (only `LoopRunner.loopChanged` calls it). */
  cancelTimer(loop: Loop): void
  dispose(): void
}

export class LoopRunner {
  /** A take-back is under way: a beat that comes meanwhile starts none. */
  private takingBack = false

  constructor(
    private readonly host: JobHost,
    private readonly ctx: JobContext,
  ) {}

  /** A turn of `loop` ended (its idle was claimed by the manager). */
  onTurnEnded(loop: Loop): void {
    this.host.start(`turn end of ${loop.id}`, turnEnded(this.ctx, loop))
  }

  /** The model's turn for a /ralph-plan request ended: the plan is checked. */
  onPlanTurnEnded(request: PlanRequest): void {
    this.host.start(`plan check in ${request.sessionID}`, planTurnEnded(this.ctx, request))
  }

  /** The loop's wait is over (its timer fired). */
  wake(loop: Loop): void {
    this.host.start(`wake of ${loop.id}`, wake(this.ctx, loop))
  }

  /** /ralph-resume from another session of the loop: go on now. */
  resumeNow(loop: Loop, how: ResumeHow): void {
    this.host.start(`resume of ${loop.id}`, resumeNow(this.ctx, loop, how))
  }

  /**
   * After OpenCode (re)started: the loops taken back from disk go on (a moment later); ended ones finish their
   * retirements.
   */
  recoverAll(adopted: readonly Loop[], found: Pick<LoadResult, "problems" | "owned" | "loops">): void {
    this.host.start("recovery", recoverAll(this.ctx, adopted, found))
  }

  /** At a heartbeat of the project's lease holder: the loops whose OpenCode stopped are taken back. */
  takeBack(): void {
    if (this.takingBack) return
    this.takingBack = true
    const runner = this
    this.host.start(
      "take-back",
      (function* () {
        try {
          yield* takeBack(runner.ctx)
        } finally {
          runner.takingBack = false
        }
      })(),
    )
  }

  /** A turn of a session without a loop ended: the continuations outside /ralph look at it. */
  onPlainIdle(sessionID: string, settings: Settings): void {
    const idle = afterIdle(this.ctx, sessionID, settings)
    if (idle) this.host.startAfter(idle.settleMs, `continuations of ${sessionID}`, idle.job)
  }

  /** The user wrote in a session without a loop: the work tree their turn is compared with (auto-continue). */
  captureBaseline(sessionID: string): void {
    const watch = this.ctx.continuations
    const { userEpoch } = watch.moment(sessionID)
    this.host.start(
      `work tree before the turn of ${sessionID}`,
      (function* () {
        const tree = yield* io({ kind: "fingerprint" })
        watch.baselineTaken(sessionID, tree, userEpoch)
      })(),
    )
  }

  /**
   * Something happened to a loop (the manager's listener, production's and the fuzzer's): a loop that
   * no longer waits loses its wake-up timer here, the one place timers are cancelled, before the
   * caller goes on; an end, an open breaker or a long wait is notified, and an ended loop's staged
   * notes are settled — each in a job of its own.
   */
  loopChanged(loop: Loop, change: string): void {
    if (!keepsTimer(loop)) this.host.cancelTimer(loop)
    const notification = notificationFor(
      loop,
      change,
      this.ctx.now(),
      () => {
        try {
          return reportFile(this.ctx.directory, loop)
        } catch {
          return undefined // an id or summaryPath unfit for a path: no report is written either
        }
      },
      this.ctx.settings().notify.webhook,
    )
    if (notification) this.host.start(`notification for ${loop.id}`, announce(notification))
    if (change.startsWith("stopped:") && featureOn(loop.settings, "remember"))
      this.host.start(`staged notes of ${loop.id}`, settleStaged(loop))
  }

  /** The model called ralph_done in the loop's session: its claim judged now (undefined: the job could not finish). */
  async judgeToolClaim(loop: Loop, messageID: string): Promise<JudgedClaim | undefined> {
    let judged: JudgedClaim | undefined
    const ctx = this.ctx
    await this.host.runNow(
      `ralph_done of ${loop.id}`,
      (function* () {
        judged = yield* judgeToolClaim(ctx, loop, messageID)
      })(),
    )
    return judged
  }

  /** /ralph-rollback of `loop` (live or ended): what the user is told (undefined: the job could not finish). */
  async rollback(loop: Loop, args: string): Promise<RollbackResult | undefined> {
    let result: RollbackResult | undefined
    const ctx = this.ctx
    await this.host.runNow(
      `rollback of ${loop.id}`,
      (function* () {
        result = yield* rollback(ctx, loop, args)
      })(),
    )
    return result
  }

  /** A loop was stopped outside a job (/cancel-ralph): its session's title says so. */
  ended(loop: Loop): void {
    this.host.start(`end of ${loop.id}`, retitleEnded(loop))
  }

  /**
   * Reads the work tree as a loop begins (HEAD and the files the user had changed already, for
   * "files changed since the loop began"; the progress baseline); resolves once it is recorded.
   */
  captureStart(loop: Loop): Promise<void> {
    const { ctx } = this
    const manager = ctx.manager
    return this.host.runNow(
      `start of ${loop.id}`,
      (function* () {
        const [tree, sample] = yield* all({ kind: "work-tree", loop }, { kind: "sample", loop })
        manager.startCaptured(loop, tree, sample)
        yield* startCheckpoint(loop)
        const initial = yield* initialChecks(ctx, loop)
        if (initial) manager.initialChecksMeasured(loop, initial)
      })(),
    )
  }

  /**
   * A job of the worktree loops or of a parallel run (settle, launch, a run's step:
   * src/worktrees/settle-job.ts, launch-worktree.ts, parallel-run.ts), in the background.
   */
  worktreeJob(label: string, job: Job): void {
    this.host.start(label, job)
  }

  /** The same, resolving once it has ended (the simulator's: at once). */
  worktreeJobNow(label: string, job: Job): Promise<void> {
    return this.host.runNow(label, job)
  }

  persisted(loop: Loop): Promise<void> {
    return this.host.persisted(loop)
  }

  reached(point: CrashPoint): void {
    this.host.reached(point)
  }

  dispose(): void {
    this.host.dispose()
  }
}
