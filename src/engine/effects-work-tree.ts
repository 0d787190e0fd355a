// The effect kinds that read the project's work tree, and commit the loop's work on the user's side.
// Declared into the kernel's `Effects` (src/effects/kernel.ts); handled in handlers/work-tree.ts.
import type { StartCapture } from "../loop/changed-files.js"
import type { Loop } from "../loop/loop.js"
import type { ProgressSample } from "../loop/progress.js"
import type { StoryCommit } from "../changes/auto-commit.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** The work tree and the session's completed todos, for the progress measure. */
    sample: { ask: { loop: Loop }; result: ProgressSample }
    /** Files changed since the loop began, outside its own folders (never fails: [] then). */
    "changed-files": { ask: { loop: Loop }; result: string[] }
    /** HEAD and the changed files' content as the loop begins (undefined: not a git repository, or git failed). */
    "work-tree": { ask: { loop: Loop }; result: StartCapture }
    /** A fingerprint of the project's work tree (undefined: not a git repository). */
    fingerprint: { ask: object; result: string | undefined }
    /** autoCommit: the loop's changed files committed on the user's branch. */
    "commit-story": { ask: { loop: Loop; message: string }; result: StoryCommit }
    /**
     * --story: the loop's changed files (the plan file aside) committed on the new branch `branch`
     * from HEAD, nothing of the user's touched.
     */
    "story-branch": { ask: { loop: Loop; branch: string; message: string }; result: StoryCommit }
  }
}
