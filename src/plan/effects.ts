// The effect kinds of plan loops: the plan file and the progress log. Declared into the kernel's
// `Effects` (src/effects/kernel.ts); handled in src/engine/handlers/features.ts.
import type { Loop } from "../loop/loop.js"
import type { PlanFileRead } from "./plan-file-read.js"
import type { ProgressEntry } from "../store/progress-entry.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** The plugin's record of a plan loop's stories, written into its plan file. */
    "write-plan": { ask: { loop: Loop }; result: { changed: string[] } | { problem: string } }
    /** A plan file read and checked (for /ralph-plan). */
    "read-plan": { ask: { path: string }; result: PlanFileRead }
    "append-progress": { ask: { entry: ProgressEntry }; result: void }
    /** The progress log's text (undefined: there is none yet). */
    "read-progress": { ask: object; result: string | undefined }
  }
}
