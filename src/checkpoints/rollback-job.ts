// /ralph-rollback [N | --to-start]: the work tree back to a checkpoint of the loop. The loop is
// paused before any file is written — its wake-up timer ends with the pause (LoopRunner.loopChanged),
// and a wake or resume job under way finds it paused — then the present state is saved as one more
// checkpoint (so the rollback can be undone) and the checkpoint's files are written. Never under a
// turn of this loop or of another live loop of the project (src/checkpoints/rollback-rule.ts), asked again after
// every step that takes time: a wake may prompt, the user may resume or start a loop meanwhile.
import { type Checkpoint, CheckpointListError, rollbackSummary, rollbackTarget } from "./checkpoints.js"
import type { Loop } from "../loop/loop.js"
import { rollbackRefusal, TURN_UNDER_WAY } from "./rollback-rule.js"
import { io, type Job } from "../effects/kernel.js"
import { log } from "../effects/jobs.js"
import type { LoopJobContext } from "../loop/job-context.js"

export interface RollbackResult {
  /** The work tree was written back (false: refused or failed, `message` says why). */
  done: boolean
  title: string
  message: string
  variant: "info" | "success" | "warning" | "error"
}

const refused = (message: string): RollbackResult => ({
  done: false,
  title: "Ralph · no rollback",
  message,
  variant: "warning",
})

/** What the user is told; git's failures are said, not thrown (the loop stays paused then). */
export function* rollback(ctx: LoopJobContext, loop: Loop, args: string): Job<RollbackResult> {
  try {
    return yield* restore(ctx, loop, args)
  } catch (error) {
    yield {
      kind: "log",
      level: "warn",
      message: `the rollback did not finish: ${String(error)}`,
      extra: { loop: loop.id },
      cause: error,
    }
    return {
      done: false,
      title: "Ralph · rollback failed",
      message: `The rollback did not finish: ${String(error)}`,
      variant: "error",
    }
  }
}

function* restore(ctx: LoopJobContext, loop: Loop, args: string): Job<RollbackResult> {
  const refusal = () => rollbackRefusal(loop, ctx.manager.all())
  const before = refusal()
  if (before) return refused(before)
  if (!(yield* idle(loop.sessionID))) return refused(TURN_UNDER_WAY)
  let checkpoints: Checkpoint[]
  try {
    checkpoints = yield* io({ kind: "checkpoints", loop })
  } catch (error) {
    if (error instanceof CheckpointListError) return refused(unlisted(error))
    throw error
  }
  const meanwhile = refusal()
  if (meanwhile) return refused(meanwhile)
  const target = rollbackTarget(checkpoints, args)
  if (!target.ok) return refused(target.message)
  const { number } = target.checkpoint
  ctx.manager.pause(loop, `rolling back to checkpoint ${number}`, "rollback")
  let saved: Checkpoint | undefined
  try {
    saved = yield* io({ kind: "checkpoint-save", loop })
  } catch (error) {
    if (error instanceof CheckpointListError) {
      return refused(`${unlisted(error)} The loop is paused; /ralph-resume goes on.`)
    }
    throw error
  }
  if (!saved) return refused("The project is not a git repository: there are no checkpoints.")
  const late = refusal()
  if (late)
    return refused(`${late}\nNothing was restored; the work tree as it is now was saved as checkpoint ${saved.number}.`)
  const changes = yield* io({ kind: "checkpoint-restore", loop, present: saved, target: target.checkpoint })
  ctx.manager.rolledBack(loop, `rolled back to checkpoint ${number}`)
  yield* log("info", "rolled back", {
    loop: loop.id,
    to: target.checkpoint.ref,
    saved: saved.ref,
    files: changes.length,
  })
  return {
    done: true,
    title: `Ralph · rolled back to checkpoint ${number}`,
    message: rollbackSummary(number, saved.number, changes),
    variant: "warning",
  }
}

/** Which checkpoints there are is unknown: no number is given to a save (0 would be the start's), no file written. */
const unlisted = (error: CheckpointListError): string =>
  `No rollback: ${error.message}. Nothing was saved or restored; try again once git answers.`

/** The session is idle (false also when OpenCode could not say). */
function* idle(sessionID: string): Job<boolean> {
  try {
    return yield* io({ kind: "is-idle", sessionID })
  } catch {
    return false
  }
}
