// The effect kinds of the loop's own files: its state file, its handoffs and transcripts, and the
// worktree loops' files as the main instance reads them (they go with worktree-loops.ts and
// parallel-file.ts). Declared into the kernel's `Effects` (src/effects/kernel.ts); handled in
// src/engine/handlers/store.ts.
import type { Loop } from "../loop/loop.js"
import type { MessageWithParts } from "../loop/read-turn.js"
import type { ParallelRun } from "../worktrees/parallel.js"
import type { Launcher } from "../worktrees/worktree-state.js"
import type { StoreProblem } from "./loop-store.js"
import type { StoryWorktree } from "../worktrees/parallel-file.js"
import type { SummaryRecord } from "./session-files.js"
import type { WorktreeEntry } from "../worktrees/worktree-loops.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** The state file is still what this process wrote (else it is restored, and the problem returned). */
    "verify-state": { ask: { loop: Loop }; result: StoreProblem | undefined }
    /** The loop's state as it is now has reached disk. */
    persisted: { ask: { loop: Loop }; result: void }
    "write-summary": { ask: { record: SummaryRecord }; result: string }
    "read-summary": { ask: { loop: Loop; sessionID: string }; result: string | undefined }
    "write-transcript": { ask: { loop: Loop; sessionID: string; messages: MessageWithParts[] }; result: void }
    /**
     * The project's worktree loops, from their files, as the `launcher` asking sees them (its own
     * launches are not cut).
     */
    worktrees: { ask: { launcher: Launcher }; result: WorktreeEntry[] }
    /** Where a parallel run's story worktree `name` is now: settled, running, or absent. */
    "story-worktree": { ask: { name: string; run: ParallelRun }; result: StoryWorktree }
  }
}
