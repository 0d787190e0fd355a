// What worktree loops and parallel runs use of their instance: the instance's RalphContext
// (src/engine/context.ts) has all of it, and this folder needs nothing above it.
import type { LiveSettings } from "../config/live-settings.js"
import type { Job } from "../effects/kernel.js"
import type { Host } from "../host/port.js"
import type { ParallelPlan } from "./parallel-plan.js"
import type { WorktreeWatch } from "./worktree-watch.js"
import type { Launcher } from "./worktree-state.js"

/** How worktree work is run: one job at a time beside the project's other worktree jobs. */
interface WorktreeJobs {
  worktreeJob(label: string, job: Job): void
  worktreeJobNow(label: string, job: Job): Promise<void>
}

export interface WorktreeContext {
  readonly directory: string
  readonly api: Pick<Host, "log">
  readonly settings: LiveSettings
  readonly runner: WorktreeJobs
  /** The worktree loops started from this project (merged back as they complete). */
  readonly worktrees: WorktreeWatch
  /** /ralph --prd --parallel N: the run of a plan's stories in worktree loops. */
  readonly parallel: ParallelPlan
  /** This instance, as the worktree loops it launches record it. */
  readonly launcher: Launcher
  now(): number
}
