// Production's side of the jobs: every effect they yield is done here, by a table of handlers built
// from each feature's (handlers/*.ts), with the SDK client OpenCode gave the plugin, git, the checks
// and the store. Jobs run in the background; a job never throws out of here (a failure it does not
// handle itself is logged).
import { handle, type Handlers } from "../effects/kernel.js"
import type { Loop } from "../loop/loop.js"
import type { Host } from "../host/port.js"
import type { Faults } from "../host/faults.js"
import type { LoopStore } from "../store/loop-store.js"
import { ProgressFile } from "../store/progress-file.js"
import type { ProjectMemory } from "../memory/memory-store.js"
import { keepsTimer } from "../loop/wake.js"
import type { Effect, Job } from "../effects/kernel.js"
import { CheckGroups } from "../checks/run-checks.js"
import { repositoryPrefix } from "../changes/work-tree.js"
import type { HandlerContext } from "./handlers/context.js"
import { productionHandlers } from "./handlers/production.js"

export interface InterpreterOptions {
  directory: string
  api: Host
  store: LoopStore
  memory: ProjectMemory
  /** Where the progress log is (a worktree's project: src/worktrees/shared-files.ts); `directory` if not given. */
  sharedDirectory?: string
  now?: () => number
  /** Fault injection (e2e tests only): where to kill OpenCode. */
  faults?: Faults | undefined
  /** A loop's wake-up time has come. */
  onWake: (loop: Loop) => void
  /** Cancels the loop running in another directory (a slot's), through its control channel: what it answered. */
  cancelLoopIn?: (directory: string, via: string) => Promise<string>
}

/**
 * The steps of worktree loops and parallel runs: each one's time goes to the debug log
 * (bench/worktree.ts reads it).
 */
const TIMED = new Set<Effect["kind"]>([
  "lock",
  "worktrees",
  "worktree-launch",
  "worktree-command",
  "worktree-commit",
  "worktree-merge-facts",
  "worktree-merge",
  "worktree-archive",
  "worktree-remove",
  "worktree-record",
  "slot-reset",
  "slot-park",
  "slot-remove",
  "slot-cancel",
  "story-worktree",
  "parallel-run",
  "parallel-record",
  "parallel-mark",
])

/** Which worktree (or lock) a timed step was about. */
function subject(effect: Effect): string | undefined {
  if ("name" in effect && typeof effect.name === "string") return effect.name
  if ("state" in effect && effect.state && "name" in effect.state) return effect.state.name
  if ("lock" in effect) return effect.lock.name
  if ("path" in effect && typeof effect.path === "string") return effect.path.slice(effect.path.lastIndexOf("/") + 1)
  return undefined
}

export class Interpreter {
  private readonly timers = new Map<Loop, ReturnType<typeof setTimeout>>()
  /** The instance was disposed (OpenCode reloads it): work under way must not reach OpenCode. */
  private disposed = false
  /** The process groups of the checks running now: killed on dispose. */
  private readonly checkGroups = new CheckGroups()
  /** The project's place in its git repository (undefined: not a repository), asked once. */
  private prefix?: Promise<string | undefined>
  private readonly progress: ProgressFile

  /** Each effect kind's handler: a kind without one fails `npm run typecheck`. */
  private readonly handlers: Handlers

  constructor(private readonly options: InterpreterOptions) {
    this.progress = new ProgressFile(options.sharedDirectory ?? options.directory)
    this.handlers = productionHandlers(this.handlerContext())
  }

  /** What the handlers are given: the services, and this interpreter's clock, timers and jobs. */
  private handlerContext(): HandlerContext {
    const { directory, api, store, memory } = this.options
    return {
      directory,
      api,
      store,
      memory,
      progress: this.progress,
      checkGroups: this.checkGroups,
      now: () => this.now(),
      assertLive: () => {
        if (this.disposed) throw new Error("the plugin instance was disposed")
      },
      repositoryPrefix: () => (this.prefix ??= repositoryPrefix(directory)),
      reached: (point) => this.reached(point),
      schedule: (loop, until) => this.schedule(loop, until),
      start: (label, job) => this.start(label, job),
      cancelLoopIn: this.options.cancelLoopIn ?? (async () => "no control channel in this instance"),
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)()
  }

  /** Runs `job` to its end in the background. */
  start(label: string, job: Job): void {
    void this.runNow(label, job)
  }

  /** Starts `job()` after `ms`, unless the instance was disposed meanwhile. */
  startAfter(ms: number, label: string, job: () => Job): void {
    if (ms <= 0) return this.start(label, job())
    setTimeout(() => {
      if (!this.disposed) this.start(label, job())
    }, ms)
  }

  /** Runs `job`; resolves when it has ended (never rejects: a failure is logged). */
  runNow(label: string, job: Job): Promise<void> {
    return this.run(job).catch((error: unknown) => this.options.api.log("error", `${label} failed: ${String(error)}`))
  }

  async run(job: Job): Promise<void> {
    let step = job.next()
    while (!step.done) {
      // Disposed: the job stops here, as if OpenCode had ended (the next instance recovers from disk).
      if (this.disposed) return
      let result: unknown
      try {
        result = await this.resolveTimed(step.value)
      } catch (error) {
        step = job.throw(error)
        continue
      }
      step = job.next(result)
    }
  }

  /** Resolves once the loop's state as it is now has reached disk (or failed to; that is logged). */
  persisted(loop: Loop): Promise<void> {
    return this.options.store.settled(loop.id)
  }

  reached(point: Parameters<Faults["point"]>[0]): void {
    this.options.faults?.point(point)
  }

  cancelTimer(loop: Loop): void {
    const timer = this.timers.get(loop)
    if (timer) clearTimeout(timer)
    this.timers.delete(loop)
  }

  /** Timers armed now (one per waiting loop at most): for RALPH_LOOP_DEBUG's gauges. */
  get timerCount(): number {
    return this.timers.size
  }

  dispose(): void {
    this.disposed = true
    this.checkGroups.killAll()
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
  }

  /** `resolve`, and a worktree step's time in the debug log. */
  private async resolveTimed(effect: Effect): Promise<unknown> {
    if (!TIMED.has(effect.kind)) return this.resolve(effect)
    const at = Date.now()
    try {
      return await this.resolve(effect)
    } finally {
      this.options.api.log("debug", `step ${effect.kind}`, { at, ms: Date.now() - at, of: subject(effect) })
    }
  }

  private async resolve(effect: Effect): Promise<unknown> {
    if (effect.kind === "all") return Promise.all(effect.effects.map((e) => this.resolveTimed(e)))
    return handle(this.handlers, effect)
  }

  private schedule(loop: Loop, until: number): void {
    this.cancelTimer(loop)
    // Paused or stopped between its wait and this effect (a command ran meanwhile): no timer for it.
    if (!keepsTimer(loop)) return
    const timer = setTimeout(
      () => {
        this.timers.delete(loop)
        this.options.onWake(loop)
      },
      Math.max(0, until - this.now()),
    )
    timer.unref?.()
    this.timers.set(loop, timer)
  }
}
