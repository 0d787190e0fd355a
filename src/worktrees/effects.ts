// The effect kinds of worktree loops and parallel plan runs, the main instance's side
// (src/worktrees/AGENTS.md). Declared into the kernel's `Effects` (src/effects/kernel.ts); handled in
// src/engine/handlers/worktrees.ts.
import type { ParallelRun } from "./parallel.js"
import type { PlanState } from "../plan/plan.js"
import type { MergeFacts } from "./merge-plan.js"
import type { WorktreeStarted } from "./worktree-start.js"
import type { Launcher, WorktreeState } from "./worktree-state.js"
import type { StoryWorktree } from "./parallel-file.js"
import type { SlotReset } from "./slot-launch.js"
import type { WorktreeEntry } from "./worktree-loops.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /**
     * The project's worktree loops, from their files, as the `launcher` asking sees them (its own
     * launches are not cut).
     */
    worktrees: { ask: { launcher: Launcher }; result: WorktreeEntry[] }
    /** Where a parallel run's running story is now (its worktree or slot, or its archive): settled, running, absent. */
    "story-worktree": { ask: { story: string; worktree: string; run: ParallelRun }; result: StoryWorktree }
    /**
     * Makes the worktree and its branch, its config and worktree.json, and a session there (a failure
     * after the worktree exists is recorded in it).
     */
    "worktree-launch": {
      ask: { state: Omit<WorktreeState, "base">; withChanges: boolean; title: string }
      result: WorktreeStarted
    }
    /**
     * A worktree a start that did not finish left (`leftByFailedStart`) removed with its branch, once
     * git shows nothing of anyone's is in it; else why not. `branch`: the branch it must be on (none: a slot's
     * folder without worktree.json, on the `ralph/` branch of whichever story it was made for).
     */
    "worktree-reclaim": {
      ask: { name: string; path: string; base: string | undefined; branch: string | undefined }
      result: { ok: true } | { ok: false; why: string }
    }
    /**
     * A call into the worktree's directory, which starts its OpenCode instance (and so its loop) after
     * a restart; a failure is logged, never thrown.
     */
    "worktree-wake": { ask: { path: string }; result: void }
    /** `/ralph -- <task>` in the worktree's session; done when its first turn has ended (or the call failed: why). */
    "worktree-command": { ask: { path: string; sessionID: string; task: string }; result: { failure?: string } }
    /** The loop's work committed on its branch (its own files aside); the commit, undefined when nothing changed. */
    "worktree-commit": { ask: { path: string; message: string }; result: string | undefined }
    /** What the merge plan needs to know of the user's branch and the loop's. */
    "worktree-merge-facts": { ask: { state: WorktreeState }; result: MergeFacts }
    /** The loop's branch into the user's: a fast-forward or a merge commit. */
    "worktree-merge": { ask: { state: WorktreeState; how: "fast-forward" | "merge"; message: string }; result: void }
    /**
     * The worktree's instance ends (a slot's goes on: `keepInstance`) and its loop's files go to a fresh
     * `merged/<NAME>/`; the archive's path.
     */
    "worktree-archive": { ask: { name: string; path: string; keepInstance?: true }; result: string }
    /** The worktree folder and its merged branch removed; what failed, and whether the folder is gone all the same. */
    "worktree-remove": {
      ask: { name: string; path: string }
      result: { removed: true } | { problem: string; folderGone: boolean }
    }
    /** A slot of a parallel run takes its next story, in its running OpenCode instance (worktrees/slot-launch.ts). */
    "slot-reset": { ask: SlotReset; result: WorktreeStarted }
    /** The slot leaves its story's branch: HEAD detached; the branch deleted when merged, else kept. */
    "slot-park": { ask: { name: string; path: string; branch: string }; result: { branchDeleted: boolean } }
    /**
     * A slot whose run is over: its instance ends and its folder goes, once it holds nothing beyond its commit (its
     * stories' branches are settled each on its own); what failed, and whether the folder is gone all the same.
     */
    "slot-remove": {
      ask: { name: string; path: string }
      result: { removed: true } | { problem: string; folderGone: boolean }
    }
    /** The loop running in a slot cancelled through the slot's control channel (`via`: who asks); its answer. */
    "slot-cancel": { ask: { path: string; via: string }; result: string }
    /** worktree.json written in `directory` (the worktree, or its archive). */
    "worktree-record": { ask: { directory: string; state: WorktreeState }; result: void }
    /** The parallel run under way (parallel.json), if any. */
    "parallel-run": { ask: object; result: ParallelRun | undefined }
    /** The run's record written (undefined: removed, the run is over). */
    "parallel-record": { ask: { run: ParallelRun | undefined }; result: void }
    /** A parallel run's stories done, written into its plan file. */
    "parallel-mark": { ask: { plan: PlanState }; result: { changed: string[] } | { problem: string } }
  }
}
