// After OpenCode (re)starts: take back the loops that were active, from .opencode/ralph-loop/.
// A loop whose session is gone is closed and reported; the others go on from the same iteration
// with the same counts (or wait for /ralph-resume when resumeOnStart is "ask").
import { relative } from "node:path"
import type { RalphContext } from "../context.js"
import type { Loop } from "../loop/loop.js"
import { OpencodeCallError } from "../opencode/api.js"
import type { LoopStore } from "../store/loop-store.js"
import * as notice from "./notices.js"

/** Gives a TUI that starts with OpenCode a moment to connect before the first toast. */
export const RECOVERY_GRACE_MS = 1_000

export async function recoverLoops(ctx: RalphContext, store: LoopStore): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, RECOVERY_GRACE_MS))
  const { loops, problems, owned } = await store.load(ctx.now())
  for (const id of owned) ctx.api.log("info", "a loop of this project is run by another live OpenCode process; left to it", { loop: id })
  for (const problem of problems) {
    const file = relative(ctx.directory, problem.file)
    ctx.api.log("error", `state file ${file} ${problem.message}`)
    ctx.api.toast("error", "Ralph · state file problem", `${file} ${problem.message}.`, 20_000)
  }
  for (const loop of loops) {
    if (loop.phase === "stopped" || ctx.manager.get(loop.sessionID)) continue
    const exists = await ctx.api.session(loop.sessionID).then(
      () => true,
      (error: unknown) => (error instanceof OpencodeCallError && /NotFound/i.test(JSON.stringify(error.detail)) ? false : undefined),
    )
    // A decision the restart cut off is made again (a restart it had decided is kept in `loop.restart`).
    if (loop.phase === "deciding") loop.phase = "running"
    ctx.manager.adopt(loop)
    if (exists === false) {
      ctx.manager.stop(loop, "session-deleted", "its session no longer exists")
      ctx.api.toast("warning", "Ralph · loop closed", `The loop "${loop.task.split("\n")[0]}" was active, but its session no longer exists; it is closed.`)
      continue
    }
    resume(ctx, loop)
  }
}

function resume(ctx: RalphContext, loop: Loop): void {
  ctx.api.log("info", "loop recovered after a restart", { loop: loop.id, iteration: loop.iteration, retries: loop.retries, phase: loop.phase })
  if (ctx.settings.current.resumeOnStart === "ask" && loop.phase !== "paused") {
    ctx.manager.pause(loop, "OpenCode restarted; /ralph-resume goes on")
    ctx.runner.notify(notice.paused("OpenCode restarted during the loop (resumeOnStart is \"ask\")"))
    return
  }
  ctx.runner.notify(notice.iterationStarted(loop, `Loop recovered after OpenCode restarted: iteration ${loop.iteration}, ${loop.retries} restart${loop.retries === 1 ? "" : "s"} so far.`))
  void ctx.runner.recover(loop)
}
