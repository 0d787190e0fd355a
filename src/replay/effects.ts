// The effect kinds of the replay (issue 46). Declared into the kernel's `Effects`
// (src/effects/kernel.ts); handled in src/engine/handlers/work-tree.ts.
import type { Replay } from "../evidence/replay-record.js"
import type { Loop } from "../loop/loop.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /**
     * The start's tests on the end's code: the loop's checks run again on the replay tree (the work tree
     * now, `at`: as the turn end's checkpoint holds it, with the start's test surface put back). Never
     * throws: what cannot be read or run is a replay that could not run, with the reason. `keep`: files whose
     * change the user accepted, replayed as the end has them.
     */
    replay: { ask: { loop: Loop; at?: string | undefined; keep?: readonly string[] }; result: Replay }
    /**
     * Starts the reads of the replay of the claim at `at` (the turn end's checkpoint; undefined: the work
     * tree now) and returns at once: they run beside the checks, and the `replay` of the same loop and
     * `at` that follows takes them (src/replay/prepared-reads.ts). Never throws, not even later.
     */
    "replay-prepare": { ask: { loop: Loop; at?: string | undefined }; result: void }
  }
}
