// The loop's checkpoints: the work tree before the loop (0) and as each iteration left it, on
// private refs. The iteration's is made while the turn end settles (the turn is over, the work
// tree still), beside the progress sample, so it adds nothing to the time to the next prompt.
// Not a git repository: one notice when the loop starts, and none after.
import type { Loop } from "../loop/loop.js"
import { io, log, notify, type Job } from "../engine/effects.js"

export function* startCheckpoint(loop: Loop): Job {
  const result = yield* io({ kind: "checkpoint", loop, iteration: 0 })
  if ("notGit" in result)
    yield* notify({
      variant: "info",
      title: "Ralph · no checkpoints",
      message:
        "The project is not a git repository, so this loop keeps no checkpoints and /ralph-rollback cannot undo " +
        "its iterations.",
    })
  yield* checkpointMade(loop, 0, result)
}

/** What became of a checkpoint: logged; a failure never stops the loop. */
export function* checkpointMade(
  loop: Loop,
  iteration: number,
  result: { made: unknown } | { notGit: true } | { problem: string },
): Job {
  if ("problem" in result)
    yield* log("warn", `could not make the checkpoint of iteration ${iteration}: ${result.problem}`, { loop: loop.id })
}
