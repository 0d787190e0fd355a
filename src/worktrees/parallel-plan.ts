// The main instance's side of /ralph --prd --parallel N: it starts up to N ready stories, each as
// a worktree loop, and as each one's branch is settled (WorktreeWatch) it marks the story done in
// the plan file — the one record, one writer — and starts what became ready. The run's state is
// `.opencode/ralph-loop/parallel.json`, so a restart of OpenCode goes on from it. Each step is a
// job of the runner (src/worktrees/parallel-run-job.ts), one at a time under `lock`.
import { join } from "node:path"
import type { Settings } from "../config/schema.js"
import type { WorktreeContext } from "./worktree-context.js"
import type { ParallelRun } from "./parallel.js"
import type { PlanState } from "../plan/plan.js"
import { readParallelRun, RUN_FILE, type SettledWorktree } from "./parallel-file.js"
import type { WorktreeState } from "./worktree-state.js"
import type { Job } from "../effects/kernel.js"
import { JobLock, locked } from "../effects/job-lock.js"
import { cancelRun, reconcileRun, startRun, storyEnd, storyEnded, type RunStart } from "./parallel-run-job.js"

export class ParallelPlan {
  /**
   * One at a time: the run's steps and every worktree launch (a launch counts the live worktree
   * loops against maxParallelLoops; two at once would both find the same free place).
   */
  readonly lock = new JobLock("worktree launches and the parallel run")

  constructor(private readonly ctx: () => WorktreeContext) {}

  get file(): string {
    return join(this.ctx().directory, RUN_FILE)
  }

  /** The run on disk, if one is under way. */
  current(): ParallelRun | undefined {
    return readParallelRun(this.ctx().directory)
  }

  /** Starts a run; resolves with the stories started, or why none could. */
  async start(plan: PlanState, parallel: number, fromSession: string, overrides: Partial<Settings>): Promise<RunStart> {
    const ctx = this.ctx()
    let result: RunStart | undefined
    await ctx.runner.worktreeJobNow(
      `start of a parallel run of ${plan.file}`,
      locked(
        this.lock,
        (function* () {
          result = yield* startRun(ctx, plan, parallel, fromSession, overrides)
        })(),
      ),
    )
    return result ?? { ok: false, error: "the parallel run's start did not finish (OpenCode's log says why)" }
  }

  /** A worktree loop's branch was settled: its story is done if its work reached the user's branch. */
  settled(settled: SettledWorktree): void {
    this.step(
      `parallel run: worktree ${settled.entry.name} settled`,
      storyEnded(this.ctx(), settled.state, storyEnd(settled)),
    )
  }

  /**
   * A story's worktree loop did not start there: the story failed, its place is free, and the run goes on (or ends).
   */
  notStarted(state: WorktreeState, detail: string): void {
    this.step(`parallel run: worktree ${state.name} did not start`, storyEnded(this.ctx(), state, { failed: detail }))
  }

  /** Cancels the run under way: how many stories were running (they end, then it ends), or undefined: no run. */
  async cancel(via: string): Promise<{ running: number } | undefined> {
    const ctx = this.ctx()
    let result: { running: number } | undefined
    await ctx.runner.worktreeJobNow(
      "parallel run: cancel",
      locked(
        this.lock,
        (function* () {
          result = yield* cancelRun(ctx, via)
        })(),
      ),
    )
    return result
  }

  /** After a restart of OpenCode: what happened to the run's stories meanwhile (resolves when taken up). */
  reconcile(): Promise<void> {
    return this.ctx().runner.worktreeJobNow(
      "parallel run: after a restart",
      locked(this.lock, reconcileRun(this.ctx())),
    )
  }

  private step(label: string, job: Job): void {
    this.ctx().runner.worktreeJob(label, locked(this.lock, job))
  }
}
