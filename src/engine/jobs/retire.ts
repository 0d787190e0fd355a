// Strategy `recreate`: an old session is archived (its transcript next to its summary) and deleted —
// only once it is idle, and never while a loop lives in it.
import type { Loop } from "../../loop/loop.js"
import { io, log, reached, type Job } from "../effects.js"
import type { JobContext } from "./context.js"

/** How long an old session may take to go idle before it is kept instead. */
export const IDLE_WAIT_MS = 10_000
const IDLE_POLL_MS = 200

export function* retire(ctx: JobContext, loop: Loop, sessionID: string): Job {
  try {
    if (!(yield* untilIdle(ctx, sessionID))) {
      yield* log("warn", "old session did not go idle; it is kept", { session: sessionID })
      return
    }
    yield* reached("retire.idle")
    const messages = yield* io({ kind: "messages", sessionID })
    yield* io({ kind: "write-transcript", loop, sessionID, messages })
    yield* reached("transcript.written")
    // The user started a new loop in the old session meanwhile: it is theirs now, kept.
    if (ctx.manager.get(sessionID)) return
    yield* io({ kind: "delete-session", sessionID })
    yield* reached("session.deleted")
    yield* log("info", "old session archived and deleted", { loop: loop.id, session: sessionID })
  } catch (error) {
    yield* log("warn", "could not archive and delete the old session; it is kept", {
      session: sessionID,
      error: String(error),
    })
  } finally {
    // Deleted, kept for good, or gone already: either way not tried again.
    ctx.manager.retired(loop, sessionID)
  }
}

/** The old sessions a crash kept from being archived and deleted. */
export function* retireAll(ctx: JobContext, loop: Loop): Job {
  for (const sessionID of [...loop.retiring]) yield* retire(ctx, loop, sessionID)
}

function* untilIdle(ctx: JobContext, sessionID: string): Job<boolean> {
  const deadline = ctx.now() + IDLE_WAIT_MS
  while (!(yield* io({ kind: "is-idle", sessionID }))) {
    if (ctx.now() >= deadline) return false
    yield* io({ kind: "sleep", ms: IDLE_POLL_MS })
  }
  return true
}
