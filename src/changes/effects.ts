// The effect kind of the guard's read (issue 39). Declared into the kernel's `Effects`
// (src/effects/kernel.ts); handled in src/engine/handlers/work-tree.ts.
import type { Loop } from "../loop/loop.js"
import type { GuardRead } from "./guard-read.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /**
     * The guard's read for a claim of done: the loop's diff from its start checkpoint to the work tree
     * now (`at`: as the turn end's checkpoint holds it), and the texts its scan needs; a git failure throws.
     */
    "guard-read": { ask: { loop: Loop; at?: string | undefined }; result: GuardRead }
  }
}
