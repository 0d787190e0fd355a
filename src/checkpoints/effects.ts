// The effect kinds of checkpoints and rollback: the work tree saved on `refs/ralph/<loop>/<n>` as the
// loop goes, and written back by /ralph-rollback. Declared into the kernel's `Effects`
// (src/effects/kernel.ts); handled in src/engine/handlers/checkpoints.ts.
import type { Checkpoint, TreeChange } from "./checkpoints.js"
import type { Loop } from "../loop/loop.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /**
     * The work tree as iteration `iteration` left it (0: before the loop), on `refs/ralph/<loop>/<n>`;
     * never throws.
     */
    checkpoint: {
      ask: { loop: Loop; iteration: number }
      result: { made: Checkpoint } | { notGit: true } | { problem: string }
    }
    /**
     * The loop's checkpoints, oldest first (none: not a git repository, or none made yet); a listing
     * git fails throws a CheckpointListError.
     */
    checkpoints: { ask: { loop: Loop }; result: Checkpoint[] }
    /**
     * A rollback's first write: the work tree now, saved as the loop's next checkpoint (undefined: not
     * a git repository); a listing git fails throws a CheckpointListError.
     */
    "checkpoint-save": { ask: { loop: Loop }; result: Checkpoint | undefined }
    /** A rollback: checkpoint `target`'s files written into the work tree, which is `present` now; what changed. */
    "checkpoint-restore": { ask: { loop: Loop; present: Checkpoint; target: Checkpoint }; result: TreeChange[] }
  }
}
