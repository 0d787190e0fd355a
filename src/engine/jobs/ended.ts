// A loop stopped: its session's title says how it ended (src/loop/outcome.ts).
import type { Loop } from "../../loop/loop.js"
import { outcomeTitle } from "../../loop/outcome.js"
import { io, log, type Job } from "../effects.js"

/** Called right after the stop, before anything else can happen in the session. */
export function* retitleEnded(loop: Loop): Job {
  const title = outcomeTitle(loop)
  if (!title) return
  try {
    yield* io({ kind: "set-title", sessionID: loop.sessionID, title })
  } catch (error) {
    yield* log("warn", "could not retitle the loop's session", {
      loop: loop.id,
      session: loop.sessionID,
      error: String(error),
    })
  }
}
