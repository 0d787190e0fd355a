// The effect kinds of the project memory. Declared into the kernel's `Effects` (src/effects/kernel.ts);
// handled in src/engine/handlers/features.ts.
import type { MemoryFile, MemorySection } from "./memory-file.js"

export interface RememberItem {
  section: MemorySection
  source: string
  text: string
}

declare module "../effects/kernel.js" {
  interface Effects {
    /** The project memory as it is on disk (empty when it cannot be read). */
    memory: { ask: object; result: MemoryFile }
    /** Adds entries to the project memory (deduplicated, pruned beyond `maxEntries`). */
    remember: { ask: { items: RememberItem[]; maxEntries: number }; result: void }
    /** A loop ended: its staged notes become memory (it completed) or stay, marked unverified. */
    "settle-staged": { ask: { loopID: string; completed: boolean; maxEntries: number }; result: void }
  }
}
