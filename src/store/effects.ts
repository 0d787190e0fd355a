// The effect kinds of the loop's own files: its state file, its handoffs and transcripts, the plan
// write-back and the progress log. Declared into the kernel's `Effects` (src/effects/kernel.ts); handled in
// src/engine/handlers/store.ts.
import type { Loop } from "../loop/loop.js"
import type { MessageWithParts } from "../loop/read-turn.js"
import type { StoreProblem } from "./loop-store.js"
import type { SummaryRecord } from "./session-files.js"
import type { ProgressEntry } from "./progress-entry.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** The state file is still what this process wrote (else it is restored, and the problem returned). */
    "verify-state": { ask: { loop: Loop }; result: StoreProblem | undefined }
    /** The live loops on disk whose owner is gone (src/owner/liveness.ts), but those `running` names. */
    "orphaned-loops": { ask: { running: readonly string[] }; result: Loop[] }
    /** The loop's state as it is now has reached disk. */
    persisted: { ask: { loop: Loop }; result: void }
    "write-summary": { ask: { record: SummaryRecord }; result: string }
    "read-summary": { ask: { loop: Loop; sessionID: string }; result: string | undefined }
    "write-transcript": { ask: { loop: Loop; sessionID: string; messages: MessageWithParts[] }; result: void }
    /** The plugin's record of a plan loop's stories, written into its plan file. */
    "write-plan": { ask: { loop: Loop }; result: { changed: string[] } | { problem: string } }
    "append-progress": { ask: { entry: ProgressEntry }; result: void }
    /** The progress log's text (undefined: there is none yet). */
    "read-progress": { ask: object; result: string | undefined }
  }
}
