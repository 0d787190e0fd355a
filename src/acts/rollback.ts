// /ralph-rollback [N | --to-start]: the work tree back to a checkpoint of the session's loop, live or
// ended. The rollback is a job of the runner (src/checkpoints/rollback-job.ts): the loop is paused (its
// wake-up timer ended) before any file is written, and it is refused under a turn of the loop or of
// another live loop of the project.
import type { RollbackResult } from "../checkpoints/rollback-job.js"
import type { RalphContext } from "../engine/context.js"
import type { Loop } from "../loop/loop.js"

export async function rollback(ctx: RalphContext, loop: Loop, args: string): Promise<RollbackResult> {
  return (
    (await ctx.runner.rollback(loop, args)) ?? {
      done: false,
      title: "Ralph · rollback failed",
      message: "The rollback did not finish (see OpenCode's log).",
      variant: "error",
    }
  )
}
