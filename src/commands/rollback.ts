// /ralph-rollback [N | --to-start]: the work tree back to a checkpoint of the loop. The present
// state is saved as one more checkpoint first (so the rollback can be undone), the loop is paused,
// and the user is told what changed. Never while a turn of the loop runs: the model would be
// writing into files being replaced.
import { listCheckpoints, restoreCheckpoint, saveBeforeRollback } from "../actions/checkpoints.js"
import type { RalphContext } from "../context.js"
import { rollbackSummary, rollbackTarget } from "../loop/checkpoints.js"
import type { Loop } from "../loop/loop.js"

export interface RollbackResult {
  title: string
  message: string
  variant: "info" | "success" | "warning" | "error"
}

const TURN_PHASES = new Set<Loop["phase"]>(["running", "deciding", "restarting"])

export async function rollback(ctx: RalphContext, loop: Loop, args: string): Promise<RollbackResult> {
  const refused = (message: string): RollbackResult => ({ title: "Ralph · no rollback", message, variant: "warning" })
  if (TURN_PHASES.has(loop.phase) || !(await ctx.api.isIdle(loop.sessionID).catch(() => false)))
    return refused("A turn of the loop is under way. /ralph-pause, wait for the turn to end, then /ralph-rollback.")
  const target = rollbackTarget(await listCheckpoints(ctx.directory, loop.id), args)
  if (!target.ok) return refused(target.message)
  const saved = await saveBeforeRollback(ctx.directory, loop.id)
  if (!saved) return refused("The project is not a git repository: there are no checkpoints.")
  const changes = await restoreCheckpoint(ctx.directory, saved.commit, target.checkpoint.commit)
  if (loop.phase !== "stopped") ctx.manager.pause(loop, `rolled back to checkpoint ${target.checkpoint.number}`)
  ctx.api.log("info", "rolled back", { loop: loop.id, to: target.checkpoint.ref, saved: saved.ref, files: changes.length })
  return { title: `Ralph · rolled back to checkpoint ${target.checkpoint.number}`, message: rollbackSummary(target.checkpoint.number, saved.number, changes), variant: "warning" }
}
