// The main instance's side of /ralph --prd --parallel N: it starts up to N ready stories, each as
// a worktree loop, and as each one's branch is settled (WorktreeWatch) it marks the story done in
// the plan file — the one record, one writer — and starts what became ready. The run's state is
// `.opencode/ralph-loop/parallel.json`, so a restart of OpenCode goes on from it.
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { join } from "node:path"
import type { Settings } from "../config/schema.js"
import type { RalphContext } from "../context.js"
import { launchWorktreeLoop } from "../commands/start-worktree.js"
import { madeByRun, parallelRunSchema, runOver, storiesToStart, storyTask, storyWorktreeName, type ParallelRun } from "../plan/parallel.js"
import type { PlanState, StoryDone } from "../plan/plan.js"
import { STATE_DIR } from "../project/own-files.js"
import { writeFileAtomic } from "../store/atomic.js"
import { writePlanBack } from "../store/plan-file.js"
import { MERGED_DIR, type SettledWorktree } from "./worktree-watch.js"
import { readWorktreeState } from "../store/worktree-file.js"
import { readNewestLoops } from "../store/saved-loops.js"
import { worktreePath } from "../worktree/names.js"
import type { WorktreeState } from "../worktree/worktree-state.js"

const RUN_FILE = `${STATE_DIR}/parallel.json`

/** The settled worktree `name` of `run` (merged and archived, or kept), with its loop; undefined while it runs. */
async function settledWorktree(main: string, name: string, run: ParallelRun): Promise<SettledWorktree | undefined> {
  for (const path of [join(main, MERGED_DIR, name), worktreePath(main, name)]) {
    const state = readWorktreeState(path)
    if (!state?.merge || !madeByRun(run, state)) continue
    const [saved] = await readNewestLoops(join(path, STATE_DIR, "loops"), 1)
    if (saved) return { entry: { name, path, state, saved }, state, loop: saved.loop, outcome: state.merge }
  }
  return undefined
}

export class ParallelPlan {
  /** Changes of the run, one after the other (settled worktrees can come while stories start). */
  private queue: Promise<void> = Promise.resolve()

  constructor(private readonly ctx: () => RalphContext) {}

  get file(): string {
    return join(this.ctx().directory, RUN_FILE)
  }

  /** The run on disk, if one is under way. */
  current(): ParallelRun | undefined {
    try {
      const parsed = parallelRunSchema.safeParse(JSON.parse(readFileSync(this.file, "utf8")))
      return parsed.success ? parsed.data : undefined
    } catch {
      return undefined
    }
  }

  /** Starts a run; resolves with the stories started, or why none could. */
  start(plan: PlanState, parallel: number, fromSession: string, overrides: Partial<Settings>): Promise<{ ok: true; started: string[] } | { ok: false; error: string }> {
    return this.serially(async () => {
      const under = this.current()
      if (under) return { ok: false as const, error: `a parallel run of ${under.plan.file} is under way (${under.running.map((r) => r.story).join(", ") || "settling"}); /ralph-status shows it` }
      const run: ParallelRun = { id: randomUUID(), plan, parallel, fromSession, startedAt: this.ctx().now(), running: [], failed: [], ...(Object.keys(overrides).length ? { overrides } : {}) }
      const { started, full } = await this.startReady(run)
      if (started.length > 0) return { ok: true as const, started }
      await rm(this.file, { force: true })
      const why = [...run.failed.map((f) => f.reason), ...(full ? [full] : [])]
      return { ok: false as const, error: `no story of ${plan.file} could start${why.length ? `: ${why.join("; ")}` : ""}` }
    })
  }

  /**
   * A worktree loop's branch was settled: its story is done if its work reached the user's branch.
   * Any worktree loop that ends frees a place under maxParallelLoops, so waiting stories start.
   */
  settled({ state, loop, outcome }: SettledWorktree): void {
    const reached = outcome.result === "merged" || outcome.result === "fast-forwarded" || outcome.result === "nothing"
    const checks = loop.snapshots.at(-1)?.checks.filter((c) => c.status === "passed").map((c) => c.name) ?? []
    this.storyEnded(state, reached ? { done: { iteration: loop.iteration, checks } } : { failed: outcome.detail })
  }

  /** A story's worktree loop did not start there: the story failed, its place is free, and the run goes on (or ends). */
  notStarted(state: WorktreeState, detail: string): void {
    this.storyEnded(state, { failed: detail })
  }

  /**
   * After a restart of OpenCode: a story whose worktree was settled while the run did not hear of
   * it (the crash came between the two) is taken as settled now — only from this run's own record:
   * an archive an earlier run left under the same name (`merged/story-1`) says nothing of this run.
   */
  async reconcile(): Promise<void> {
    const run = this.current()
    if (!run) return
    for (const { story, worktree } of run.running) {
      const found = await settledWorktree(this.ctx().directory, worktree, run)
      if (found?.state.story === story) this.settled(found)
    }
  }

  /** A running story of this run has ended, done or failed; then what became ready starts. */
  private storyEnded(state: WorktreeState, end: { done: Omit<StoryDone, "id"> } | { failed: string }): void {
    void this.serially(async () => {
      const run = this.current()
      if (!run) return
      const story = state.story
      if (story && madeByRun(run, state) && run.running.some((r) => r.story === story && r.worktree === state.name)) {
        run.running = run.running.filter((r) => r.story !== story)
        if ("done" in end) {
          run.plan = { ...run.plan, done: [...run.plan.done, { id: story, ...end.done }] }
          const marked = await writePlanBack(this.ctx().directory, run.plan).catch((error: unknown) => ({ problem: String(error) }))
          if ("problem" in marked) this.ctx().api.log("warn", `could not mark story ${story} done in ${run.plan.file}: ${marked.problem}`)
        } else run.failed.push({ story, reason: end.failed })
      }
      await this.startReady(run)
    }).catch((error: unknown) => this.ctx().api.log("error", `the parallel run could not go on: ${String(error)}`))
  }

  /**
   * Starts the stories that can start. One refused because maxParallelLoops worktree loops run
   * (others than this run's) stays pending, and so do the rest: `full` says why.
   */
  private async startReady(run: ParallelRun): Promise<{ started: string[]; full?: string }> {
    const ctx = this.ctx()
    const overrides = (run.overrides ?? {}) as Partial<Settings>
    const settings = { ...ctx.settings.current, ...overrides }
    const started: string[] = []
    let full: string | undefined
    // A story that could not start leaves its place to the next: look again until none starts.
    for (let ready = storiesToStart(run, settings.maxParallelLoops); ready.length > 0 && !full; ready = storiesToStart(run, settings.maxParallelLoops)) {
      for (const story of ready) {
        const checks = [...settings.checks, ...story.checks]
        // Fast-forward cannot take two branches from one start: a parallel run merges (unless told none).
        const mergeStrategy = settings.mergeStrategy === "none" ? "none" : "merge"
        // A story ends on its claim, as in a plan loop: checks that pass are not the story done.
        const launched = await launchWorktreeLoop(ctx, run.fromSession, {
          task: storyTask(run.plan, story),
          overrides: { ...overrides, mergeStrategy, completeOnCriteria: false, ...(checks.length ? { checks } : {}) },
          request: { name: storyWorktreeName(story.id, run.plan.stories), withChanges: false },
          story: story.id,
          ...(run.id ? { run: run.id } : {}),
        })
        if (launched.ok) {
          run.running.push({ story: story.id, worktree: launched.state.name })
          started.push(story.id)
        } else if (launched.full) {
          full = launched.error
          ctx.api.log("info", `story ${story.id} waits for a place: ${launched.error}`)
          break
        } else run.failed.push({ story: story.id, reason: launched.error })
      }
    }
    await this.save(run)
    return full ? { started, full } : { started }
  }

  private async save(run: ParallelRun): Promise<void> {
    const ctx = this.ctx()
    if (!runOver(run)) return writeFileAtomic(this.file, `${JSON.stringify(run, null, 2)}\n`)
    await rm(this.file, { force: true })
    const failed = run.failed.map((f) => [f.story, f.reason] as const)
    const left = run.plan.stories.length - run.plan.done.length
    if (left === 0) ctx.api.toast("success", "Ralph · plan done", `Every story of ${run.plan.file} is done and merged (${run.plan.stories.length}).`)
    else ctx.api.toast("warning", "Ralph · plan stopped", `${left} of ${run.plan.stories.length} stories of ${run.plan.file} are not done: ${failed.map(([id, why]) => `${id}: ${why}`).join("; ") || "none could start"}.`, 20_000)
    ctx.api.log("info", "parallel plan run ended", { plan: run.plan.file, done: run.plan.done.length, failed: run.failed })
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work)
    this.queue = next.then(() => undefined, () => undefined)
    return next
  }
}
