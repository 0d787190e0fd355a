// The effect kind of the continuations outside /ralph (sessions without a loop). Declared into the
// kernel's `Effects` (src/effects/kernel.ts); handled in src/engine/handlers/host.ts.
import type { PromptInput } from "../host/port.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** Sends a continuation prompt to a session without a loop. */
    continue: {
      ask: { sessionID: string; feature: "todo-continuation" | "auto-continue"; input: PromptInput }
      result: void
    }
  }
}
