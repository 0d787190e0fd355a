// The effect kinds of plan files: reading one (/ralph-plan). Declared into the kernel's
// `Effects` (src/effects/kernel.ts); handled in src/engine/handlers/features.ts.
import type { PlanFileRead } from "./plan-file-read.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** A plan file read and checked (for /ralph-plan). */
    "read-plan": { ask: { path: string }; result: PlanFileRead }
  }
}
