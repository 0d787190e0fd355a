// The effect kind of `ralph-loop clean` run in the OpenCode that holds the project's lease
// (clean-job.ts). Declared into the kernel's `Effects` (src/effects/kernel.ts); handled in
// src/engine/handlers/clean.ts.
import type { CleanRequest } from "./clean-project.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** What clean-project.ts removes; `ok` false when something could not be removed; the lines it said. */
    "project-clean": { ask: { request: CleanRequest }; result: { ok: boolean; lines: string[] } }
  }
}
