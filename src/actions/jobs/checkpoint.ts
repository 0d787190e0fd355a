// The loop's checkpoints: the work tree before the loop (0) and as each decided iteration left it,
// on private refs. Not a git repository: one notice when the loop starts, and none after.
import type { Loop } from "../../loop/loop.js"
import { io, log, notify, type Job } from "../effects.js"

export function* startCheckpoint(loop: Loop): Job {
  const made = yield* checkpoint(loop, 0)
  if (made === null)
    yield* notify({ variant: "info", title: "Ralph · no checkpoints", message: "The project is not a git repository, so this loop keeps no checkpoints and /ralph-rollback cannot undo its iterations." })
}

export function* iterationCheckpoint(loop: Loop, iteration: number): Job {
  yield* checkpoint(loop, iteration)
}

/** null: not a git repository; undefined: git failed (logged, the loop goes on). */
function* checkpoint(loop: Loop, iteration: number): Job<string | null | undefined> {
  try {
    const made = yield* io({ kind: "checkpoint", loop, iteration })
    if (!made) return null
    yield* log("debug", "checkpoint made", { loop: loop.id, iteration, ref: made.ref })
    return made.ref
  } catch (error) {
    yield* log("warn", `could not make the checkpoint of iteration ${iteration}: ${String(error)}`, { loop: loop.id })
    return undefined
  }
}
