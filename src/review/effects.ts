// The effect kinds of a loop's review. Declared into the kernel's `Effects` (src/effects/kernel.ts);
// handled in src/engine/handlers/features.ts.
import type { Loop } from "../loop/loop.js"
import type { PromptInput } from "../host/port.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /**
     * The diff of what the loop changed since it began, for its reviewer ("": none, or not git;
     * `unknown`: git failed).
     */
    "loop-diff": { ask: { loop: Loop }; result: string | { unknown: string } }
    /** OpenCode's default and small model ("provider/model"), as configured. */
    "default-models": { ask: object; result: { model?: string | undefined; small?: string | undefined } }
    /** A prompt to a review session, answered in full: the reply's text. */
    "review-ask": { ask: { sessionID: string; input: PromptInput }; result: string }
  }
}
