// The main instance's view of its worktree loops: each runs in its worktree's own OpenCode
// instance and says how it is doing only through its files, which this watch reads four times a second
// while any worktree is there. Where each one is comes from the one lifecycle
// (src/worktrees/lifecycle.ts): a live one's instance is woken (after a restart of OpenCode nothing
// else would), and an ended one's branch is settled by a job (src/worktrees/settle-job.ts: commit,
// merge by mergeStrategy, archive under `.opencode/ralph-loop/merged/<NAME>/`, remove), one at a time.
// With several OpenCode processes on the project, only the holder of the project's lease watches
// (`holds`, src/owner/project-beat.ts): two would both merge the same branch.
import type { WorktreeContext } from "./worktree-context.js"
import { endFilesWritten } from "../store/report.js"
import { readWorktrees, type WorktreeEntry } from "./worktree-loops.js"
import { awaitsEndFiles, awaitsSettling, isLive, startWasCut } from "./lifecycle.js"
import { JobLock, locked } from "../effects/job-lock.js"
import { startCut } from "./launch-job.js"
import { wakeWorktree } from "./wake-job.js"
import { settleWorktree } from "./settle-job.js"

// A slot's next story waits for this look (issue 40); a look reads a few small files per worktree.
const TICK_MS = 250

/** What makes the watch tick: now and every `ms` until stopped (the event-order simulator ticks it itself). */
export type Ticker = (tick: () => void, ms: number) => () => void

const EVERY: Ticker = (tick, ms) => {
  const timer = setInterval(tick, ms)
  timer.unref?.()
  tick()
  return () => clearInterval(timer)
}

export class WorktreeWatch {
  private stopTicking: (() => void) | undefined
  private ticking: Promise<void> | undefined
  private readonly woken = new Set<string>()
  /** Worktrees whose settling job has not ended yet. */
  private readonly settling = new Set<string>()
  /** One merge into the user's branch at a time. */
  readonly merges = new JobLock("merges into the user's branch")
  private disposed = false

  constructor(
    private readonly ctx: () => WorktreeContext,
    private readonly ticker: Ticker = EVERY,
    /** Whether this process holds the project's lease (alone on a project: always). */
    private readonly holds: () => boolean = () => true,
  ) {}

  /** Watches while any worktree needs it (called at start-up and whenever a worktree loop starts). */
  start(): void {
    if (this.stopTicking || this.disposed) return
    this.stopTicking = this.ticker(() => void this.tick(), TICK_MS)
  }

  dispose(): void {
    this.disposed = true
    this.stopTicking?.()
    this.stopTicking = undefined
  }

  /** One look at every worktree (overlapping calls share it). */
  tick(): Promise<void> {
    this.ticking ??= this.look().finally(() => (this.ticking = undefined))
    return this.ticking
  }

  private async look(): Promise<void> {
    const ctx = this.ctx()
    // Not the lease holder (any more): the holder watches; this one starts again if it takes the lease.
    if (!this.holds()) {
      this.stopTicking?.()
      this.stopTicking = undefined
      return
    }
    try {
      const entries = await readWorktrees(ctx.directory, ctx.launcher)
      const pending = entries.filter((e) => isLive(e) || awaitsSettling(e) || startWasCut(e))
      for (const entry of pending) {
        // A look that outlasts the lease (a stall past its staleness) starts nothing more: another may hold it now.
        if (this.disposed || !this.holds()) return
        if (isLive(entry)) this.wake(entry)
        else if (startWasCut(entry)) this.recordCut(entry)
        else this.settle(entry)
      }
      if (pending.length === 0) {
        this.stopTicking?.()
        this.stopTicking = undefined
      }
    } catch (error) {
      ctx.api.log("warn", `could not look at the worktree loops: ${String(error)}`)
    }
  }

  /**
   * A call into the worktree's directory starts its OpenCode instance, whose plugin takes its loop back (a job: its
   * call is an effect).
   */
  private wake(entry: WorktreeEntry): void {
    if (!entry.saved || this.woken.has(entry.name)) return
    this.woken.add(entry.name)
    this.ctx().runner.worktreeJob(`wake of the worktree ${entry.name}`, wakeWorktree(entry.path))
  }

  /** A start a restart of OpenCode cut off is recorded as failed (its story, if any, fails; its place is free). */
  private recordCut(entry: WorktreeEntry): void {
    const { state } = entry
    if (!state || this.settling.has(entry.name)) return
    const { settling } = this
    settling.add(entry.name)
    const job = startCut(this.ctx(), entry.path, state)
    this.ctx().runner.worktreeJob(
      `failed start of the worktree ${entry.name}`,
      (function* () {
        try {
          yield* job
        } finally {
          settling.delete(entry.name)
        }
      })(),
    )
  }

  /**
   * An ended loop's branch is settled by a job — once its instance has written its end files, or
   * was waited for long enough: archived before, they would be missing from merged/<NAME>/, and
   * still being written, they would make the worktree's removal fail.
   */
  private settle(entry: WorktreeEntry): void {
    const { state, saved } = entry
    if (!state || !saved || this.settling.has(entry.name)) return
    const ctx = this.ctx()
    const { loop, savedAt } = saved
    if (awaitsEndFiles(endFilesWritten(entry.path, { loop, savedAt }), savedAt, ctx.now())) return
    const { settling, merges } = this
    settling.add(entry.name)
    const job = settleWorktree({ entry, state, loop }, (settled) => ctx.parallel.settled(settled))
    ctx.runner.worktreeJob(
      `settling of the worktree ${entry.name}`,
      (function* () {
        try {
          yield* locked(merges, job)
        } finally {
          settling.delete(entry.name)
        }
      })(),
    )
  }
}
