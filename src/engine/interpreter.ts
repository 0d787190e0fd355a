// Production's side of the jobs: every effect they yield is done here, with the SDK client
// OpenCode gave the plugin, git, the checks and the store. Jobs run in the background; a job
// never throws out of here (a failure it does not handle itself is logged).
import { commitLoopWork } from "../changes/auto-commit.js"
import { commitStoryBranch } from "../worktrees/story-commit.js"
import {
  listCheckpoints,
  makeCheckpoint,
  restoreCheckpoint,
  saveBeforeRollback,
} from "../checkpoints/checkpoint-git.js"
import { diffSinceStart } from "../changes/loop-diff.js"
import { readGuardInput } from "../changes/guard-read.js"
import { loopChangedFiles } from "../changes/loop-changes.js"
import { repositoryPrefix, sampleWorkTree, snapshotWorkTree } from "../changes/work-tree.js"
import { ownFolders, type Loop } from "../loop/loop.js"
import { loopStart } from "../loop/changed-files.js"
import type { OpencodeApi } from "../opencode/api.js"
import type { Faults } from "../host/faults.js"
import type { LoopStore } from "../store/loop-store.js"
import { readPlanFile, writePlanBack } from "../plan/plan-file.js"
import { ProgressFile } from "../store/progress-file.js"
import { emptyMemory, isoDate, remember } from "../memory/memory-file.js"
import { settleStaged } from "../memory/staging.js"
import type { ProjectMemory } from "../memory/memory-store.js"
import { readSummaryFile, writeSummary, writeTranscript } from "../store/session-files.js"
import { checksFor } from "../plan/plan.js"
import { CheckGroups, runCheck } from "../checks/run-checks.js"
import { sendNotification } from "../notify/notifier.js"
import { detectChecks } from "../checks/detect-checks.js"
import { OPENCODE_DIR } from "../project/own-files.js"
import { inTargets } from "../loop/targets.js"
import { keepsTimer } from "../loop/wake.js"
import { openTodos } from "../loop/todos.js"
import type { Effect, Job } from "./effects.js"
import { existsSync } from "node:fs"
import { readWorktrees } from "../worktrees/worktree-loops.js"
import { writeWorktreeState } from "../worktrees/worktree-file.js"
import { readParallelRun, storyWorktree, writeParallelRun } from "../worktrees/parallel-file.js"
import {
  commitWork,
  fastForward,
  mergeBranch,
  mergeFacts,
  reclaimWorktree,
  removeWorktree,
} from "../worktrees/worktree-git.js"
import { archiveWorktreeFiles } from "../worktrees/worktree-archive.js"
import { makeWorktreeLoop } from "../worktrees/worktree-launch.js"
import type { CheckConfig } from "../config/schema.js"
import type { CheckResult } from "../checks/diagnostics.js"

export interface InterpreterOptions {
  directory: string
  api: OpencodeApi
  store: LoopStore
  memory: ProjectMemory
  /** Where the progress log is (a worktree's project: src/worktrees/shared-files.ts); `directory` if not given. */
  sharedDirectory?: string
  now?: () => number
  /** Fault injection (e2e tests only): where to kill OpenCode. */
  faults?: Faults | undefined
  /** A loop's wake-up time has come. */
  onWake: (loop: Loop) => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The steps of worktree loops and parallel runs: each one's time goes to the debug log (bench/worktree.ts reads it).
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

  constructor(private readonly options: InterpreterOptions) {
    this.progress = new ProgressFile(options.sharedDirectory ?? options.directory)
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
    const { api, store, memory, directory } = this.options
    switch (effect.kind) {
      case "all":
        return Promise.all(effect.effects.map((e) => this.resolveTimed(e)))
      case "sleep":
        return sleep(effect.ms)
      case "messages":
        return api.messages(effect.sessionID)
      case "sessions":
        return api.sessions()
      case "session-exists":
        return api.sessionExists(effect.sessionID)
      case "todos":
        return api.todos(effect.sessionID)
      case "is-idle":
        return api.isIdle(effect.sessionID)
      case "summarize":
        return api.summarize(effect.sessionID, effect.model)
      case "create-session":
        return api.createSession(effect.title)
      case "select-session":
        return api.selectSession(effect.sessionID)
      case "prompt":
        if (this.disposed) throw new Error("the plugin instance was disposed")
        return api.promptAsync(effect.sessionID, effect.input)
      case "delete-session":
        return api.deleteSession(effect.sessionID)
      case "set-title":
        return api.setTitle(effect.sessionID, effect.title)
      case "sample":
        return this.sample(effect.loop)
      case "changed-files":
        return loopChangedFiles(directory, effect.loop).then(
          (files) => files.map((f) => f.path).filter((path) => inTargets(path, effect.loop.targets)),
          () => [],
        )
      case "work-tree":
        return snapshotWorkTree(directory).catch((error: unknown) => ({
          unknown: error instanceof Error ? error.message : String(error),
        }))
      case "checkpoint":
        return makeCheckpoint(directory, effect.loop.id, effect.iteration).then(
          (made) => (made ? { made } : { notGit: true as const }),
          (error: unknown) => ({ problem: String(error) }),
        )
      case "checkpoints":
        return listCheckpoints(directory, effect.loop.id)
      case "checkpoint-save":
        return saveBeforeRollback(directory, effect.loop.id)
      case "checkpoint-restore":
        return restoreCheckpoint(directory, effect.present.commit, effect.target.commit)
      case "commit-story":
        return commitLoopWork(directory, effect.loop, ownFolders(effect.loop), effect.message)
      case "story-branch":
        return commitStoryBranch(
          directory,
          effect.loop,
          ownFolders(effect.loop),
          effect.loop.plan?.file ?? "",
          effect.branch,
          effect.message,
        )
      case "loop-diff":
        // A failure is said to the reviewer, never read as "no change".
        return diffSinceStart(directory, loopStart(effect.loop), ownFolders(effect.loop)).catch((error: unknown) => ({
          unknown: error instanceof Error ? error.message : String(error),
        }))
      case "default-models":
        return api.defaultModels()
      case "review-ask":
        if (this.disposed) throw new Error("the plugin instance was disposed")
        return api.ask(effect.sessionID, effect.input)
      case "run-checks":
        return this.runChecks(checksFor(effect.loop.settings, effect.loop.plan))
      case "guard-read":
        return readGuardInput(directory, effect.loop.id, effect.at)
      case "auto-checks":
        return this.runChecks(effect.checks)
      case "session":
        return api.session(effect.sessionID)
      case "continue":
        if (this.disposed) throw new Error("the plugin instance was disposed")
        return api.promptAsync(effect.sessionID, effect.input)
      case "fingerprint":
        return this.workTree()
      case "detect-checks":
        return detectChecks(directory)
      case "verify-state":
        return store.verify(effect.loop, this.now())
      case "persisted":
        return store.settled(effect.loop.id)
      case "write-summary":
        return writeSummary(directory, effect.record)
      case "read-summary":
        return readSummaryFile(directory, effect.loop.settings.summaryPath, effect.sessionID)
      case "write-transcript":
        return writeTranscript(directory, effect.loop.settings.summaryPath, effect.sessionID, effect.messages)
      case "write-plan":
        return effect.loop.plan ? writePlanBack(directory, effect.loop.plan) : { changed: [] }
      case "read-plan":
        return readPlanFile(directory, effect.path)
      case "append-progress":
        return this.progress.append(effect.entry)
      case "read-progress":
        return this.progress.read()
      case "ask":
        if (this.disposed) throw new Error("the plugin instance was disposed")
        return api.promptAsync(effect.sessionID, { text: effect.text })
      case "memory":
        return memory.read().catch((error: unknown) => {
          api.log("warn", `could not read the project memory: ${String(error)}`)
          return emptyMemory()
        })
      case "remember": {
        const date = isoDate(this.now())
        await memory.update((m) =>
          effect.items.reduce((acc, item) => remember(acc, item.section, { ...item, date }, effect.maxEntries), m),
        )
        return
      }
      case "settle-staged": {
        const date = isoDate(this.now())
        await memory.update((m) => settleStaged(m, effect.loopID, effect.completed, date, effect.maxEntries))
        return
      }
      case "send-notification":
        return { problems: await sendNotification(effect.notification) }
      case "lock":
        return effect.lock.take()
      case "worktrees":
        return readWorktrees(directory, effect.launcher)
      case "worktree-launch":
        return makeWorktreeLoop(directory, api, effect)
      case "worktree-command":
        return api.command(effect.path, effect.sessionID, "ralph", `-- ${effect.task}`).then(
          () => ({}),
          (error: unknown) => ({ failure: String(error) }),
        )
      case "worktree-commit":
        return commitWork(effect.path, effect.message)
      case "worktree-merge-facts":
        return mergeFacts(effect.state, effect.state.mergeStrategy)
      case "worktree-merge":
        return effect.how === "fast-forward"
          ? fastForward(directory, effect.state.branch)
          : mergeBranch(directory, effect.state.branch, effect.message)
      case "worktree-archive":
        await api.disposeInstance(effect.path).catch(() => undefined)
        return archiveWorktreeFiles(directory, effect.name, effect.path, this.now())
      case "worktree-remove":
        return removeWorktree(directory, effect.name).then(
          () => ({ removed: true as const }),
          (error: unknown) => ({
            problem: error instanceof Error ? error.message : String(error),
            folderGone: !existsSync(effect.path),
          }),
        )
      case "worktree-wake":
        return api.sessionsIn(effect.path).then(
          () => undefined,
          (error: unknown) => api.log("warn", `could not wake the worktree loop in ${effect.path}: ${String(error)}`),
        )
      case "worktree-reclaim":
        return reclaimWorktree(directory, effect.name, effect.base)
      case "worktree-record":
        return writeWorktreeState(effect.directory, effect.state)
      case "story-worktree":
        return storyWorktree(directory, effect.name, effect.run)
      case "parallel-run":
        return readParallelRun(directory)
      case "parallel-record":
        return writeParallelRun(directory, effect.run)
      case "parallel-mark":
        return writePlanBack(directory, effect.plan).catch((error: unknown) => ({ problem: String(error) }))
      case "toast":
        return api.toast(effect.notice.variant, effect.notice.title, effect.notice.message, effect.notice.duration)
      case "log":
        return api.log(effect.level, effect.message, effect.extra)
      case "reached":
        return this.reached(effect.point)
      case "schedule":
        return this.schedule(effect.loop, effect.until)
      case "spawn":
        return this.start(effect.label, effect.job)
    }
  }

  private async runChecks(checks: readonly CheckConfig[]): Promise<CheckResult[]> {
    const results = []
    for (const check of checks) results.push(await runCheck(check, this.options.directory, this.checkGroups))
    return results
  }

  /** The project's work tree, its own .opencode/ folder left out (auto-continue's "did the turn change files"). */
  private async workTree(): Promise<string | undefined> {
    this.prefix ??= repositoryPrefix(this.options.directory)
    const prefix = await this.prefix
    return prefix === undefined ? undefined : sampleWorkTree(this.options.directory, prefix, [`${OPENCODE_DIR}/`])
  }

  /** Progress facts: the work tree and the session's completed todos. */
  private async sample(loop: Loop) {
    const ignore = ownFolders(loop)
    this.prefix ??= repositoryPrefix(this.options.directory)
    const prefix = await this.prefix
    const [workTree, todos] = await Promise.all([
      prefix === undefined ? undefined : sampleWorkTree(this.options.directory, prefix, ignore, loop.targets),
      this.options.api.todos(loop.sessionID).catch(() => []),
    ])
    return {
      workTree,
      todosCompleted: todos.filter((t) => t.status === "completed").length,
      openTodos: openTodos(todos),
      sessionID: loop.sessionID,
    }
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
