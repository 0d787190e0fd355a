// The main instance's view of its worktree loops: each runs in its worktree's own OpenCode
// instance and says how it is doing only through its files, which this watch reads once a second
// while any worktree is there. It wakes the instance of a worktree whose loop has not ended (after
// a restart of OpenCode nothing else would), and when a loop has ended it settles its branch:
// commit the loop's work, merge it back by mergeStrategy, and remove a merged worktree (its loop's
// files kept under `.opencode/ralph-loop/merged/<NAME>/`). One writer, one merge at a time.
import { existsSync } from "node:fs"
import { join } from "node:path"
import type { OpencodeApi } from "../opencode/api.js"
import { htmlReportFile } from "../report/write.js"
import type { Loop } from "../loop/loop.js"
import { isLive, readWorktrees, type WorktreeEntry } from "../store/worktree-loops.js"
import { writeWorktreeState } from "../store/worktree-file.js"
import { mergeAction, mergeHint, type MergeAction } from "../worktree/merge-plan.js"
import type { MergeOutcome, WorktreeState } from "../worktree/worktree-state.js"
import { archiveWorktreeFiles, MERGED_DIR } from "./worktree-archive.js"
import { commitWork, fastForward, mergeBranch, mergeFacts, removeWorktree } from "./worktree-git.js"

export { MERGED_DIR }
const TICK_MS = 1_000
/** A completed loop's reports are written right after it ends; a merge waits for them at most this long. */
const REPORT_WAIT_MS = 30_000

export interface SettledWorktree {
  entry: WorktreeEntry
  state: WorktreeState
  loop: Loop
  outcome: MergeOutcome
}

export class WorktreeWatch {
  private timer: ReturnType<typeof setInterval> | undefined
  private ticking: Promise<void> | undefined
  private readonly woken = new Set<string>()
  private disposed = false

  constructor(
    private readonly directory: string,
    private readonly api: OpencodeApi,
    private readonly now: () => number,
    /** Each worktree loop once its branch is settled (a parallel plan marks its story). */
    private readonly onSettled: (settled: SettledWorktree) => void = () => undefined,
  ) {}

  /** Watches while any worktree needs it (called at start-up and whenever a worktree loop starts). */
  start(): void {
    if (this.timer || this.disposed) return
    this.timer = setInterval(() => void this.tick(), TICK_MS)
    this.timer.unref?.()
    void this.tick()
  }

  dispose(): void {
    this.disposed = true
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /** One look at every worktree (overlapping calls share it). */
  tick(): Promise<void> {
    this.ticking ??= this.look().finally(() => (this.ticking = undefined))
    return this.ticking
  }

  private async look(): Promise<void> {
    try {
      const entries = await readWorktrees(this.directory)
      const pending = entries.filter((e) => e.state !== undefined && e.state.merge === undefined)
      for (const entry of pending) {
        if (this.disposed) return
        if (isLive(entry)) await this.wake(entry)
        else if (entry.saved && entry.state) await this.settle(entry, entry.state, entry.saved.loop, entry.saved.savedAt)
      }
      if (pending.length === 0 && this.timer) {
        clearInterval(this.timer)
        this.timer = undefined
      }
    } catch (error) {
      this.api.log("warn", `could not look at the worktree loops: ${String(error)}`)
    }
  }

  /** A call into the worktree's directory starts its OpenCode instance, whose plugin takes its loop back. */
  private async wake(entry: WorktreeEntry): Promise<void> {
    if (!entry.saved || this.woken.has(entry.name)) return
    this.woken.add(entry.name)
    await this.api.sessionsIn(entry.path).catch((error: unknown) => this.api.log("warn", `could not wake the worktree ${entry.name}: ${String(error)}`))
  }

  private async settle(entry: WorktreeEntry, state: WorktreeState, loop: Loop, savedAt: number): Promise<void> {
    if (loop.stopReason === "completed" && !existsSync(htmlReportFile(entry.path, { loop, savedAt })) && this.now() - savedAt < REPORT_WAIT_MS) return
    const outcome = loop.stopReason === "completed" ? await this.mergeBack(entry, state, loop) : kept(state, `the loop stopped (${loop.stopReason ?? "?"}) without completing`)
    const settled = { ...state, merge: outcome }
    if (outcome.removed) await writeWorktreeState(join(this.directory, MERGED_DIR, entry.name), settled)
    else await writeWorktreeState(entry.path, settled)
    this.api.log("info", `worktree ${entry.name}: ${outcome.result}`, { worktree: entry.path, detail: outcome.detail })
    const variant = outcome.result === "conflict" || outcome.result === "failed" ? "error" : outcome.result === "kept" ? "warning" : "success"
    this.api.toast(variant, `Ralph · worktree ${entry.name}`, outcome.detail, variant === "success" ? undefined : 15_000)
    this.onSettled({ entry, state, loop, outcome })
  }

  private async mergeBack(entry: WorktreeEntry, state: WorktreeState, loop: Loop): Promise<MergeOutcome> {
    const title = loop.task.split("\n")[0]?.slice(0, 72) ?? entry.name
    try {
      await commitWork(entry.path, `ralph: ${title}`)
      const action = mergeAction(await mergeFacts(state, state.mergeStrategy))
      const outcome = await this.perform(action, state, title)
      if (outcome.result !== "fast-forwarded" && outcome.result !== "merged" && outcome.result !== "nothing") return outcome
      return await this.remove(entry).then(
        () => ({ ...outcome, removed: true }),
        // The merge is done: a removal that fails is said as such, never as a failed merge.
        (error: unknown) => ({ ...outcome, removed: !existsSync(entry.path), detail: `${outcome.detail.replace(/; the worktree is removed$/, "")}; the worktree could not be removed (${error instanceof Error ? error.message : String(error)}): ralph-loop clean removes it` }),
      )
    } catch (error) {
      return { result: "failed", detail: `could not merge ${state.branch}: ${error instanceof Error ? error.message : String(error)}; the worktree and its branch are kept (${mergeHint(state.branch)})` }
    }
  }

  private async perform(action: MergeAction, state: WorktreeState, title: string): Promise<MergeOutcome> {
    const base = state.base.branch ?? "HEAD"
    switch (action.kind) {
      case "fast-forward":
        await fastForward(this.directory, state.branch)
        return { result: "fast-forwarded", detail: `${base} fast-forwarded to ${state.branch}; the worktree is removed` }
      case "merge":
        await mergeBranch(this.directory, state.branch, `Merge ${state.branch}: ${title}`)
        return { result: "merged", detail: `${state.branch} merged into ${base}; the worktree is removed` }
      case "conflict":
        return { result: "conflict", files: [...action.files], detail: `merging ${state.branch} into ${base} would conflict in ${action.files.join(", ")}; the worktree and its branch are kept (${mergeHint(state.branch)})` }
      case "keep":
        return kept(state, action.reason)
      case "nothing":
        return { result: "nothing", detail: `${action.reason}; the worktree is removed` }
    }
  }

  /** The loop's files go to merged/<NAME>/, its OpenCode instance ends, then the worktree and its merged branch go. */
  private async remove(entry: WorktreeEntry): Promise<void> {
    await this.api.disposeInstance(entry.path).catch(() => undefined)
    await archiveWorktreeFiles(this.directory, entry.name, entry.path)
    await removeWorktree(this.directory, entry.name)
  }
}

const kept = (state: WorktreeState, reason: string): MergeOutcome => ({ result: "kept", detail: `${reason}; the worktree and its branch ${state.branch} are kept (${mergeHint(state.branch)})` })
