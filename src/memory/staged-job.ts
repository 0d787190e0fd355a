// A loop ended: the notes the model staged for it become project memory if it completed (its
// checks passed), and otherwise stay under `## Staging`, marked unverified.
import type { Loop } from "../loop/loop.js"
import { io, log, type Job } from "../engine/effects.js"

export function* settleStaged(loop: Loop): Job {
  const completed = loop.stopReason === "completed"
  try {
    yield* io({ kind: "settle-staged", loopID: loop.id, completed, maxEntries: loop.settings.memoryMaxEntries })
  } catch (error) {
    yield* log("warn", `could not settle the loop's staged notes: ${String(error)}`, { loop: loop.id, completed })
  }
}
