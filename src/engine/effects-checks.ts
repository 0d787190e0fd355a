// The effect kinds that run the project's checks. Declared into the kernel's `Effects`
// (src/effects/kernel.ts); handled in handlers/checks.ts.
import type { CheckConfig } from "../config/schema.js"
import type { CheckResult } from "../checks/diagnostics.js"
import type { Loop } from "../loop/loop.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** The loop's checks (and its plan story's). */
    "run-checks": { ask: { loop: Loop }; result: CheckResult[] }
    /** The checks the project's files and installed tools suggest (detect-checks.ts). */
    "detect-checks": { ask: object; result: CheckConfig[] }
    /** auto-continue's fast checks, run for a session without a loop. */
    "auto-checks": { ask: { sessionID: string; checks: readonly CheckConfig[] }; result: CheckResult[] }
  }
}
