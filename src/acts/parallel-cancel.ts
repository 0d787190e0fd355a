// /cancel-ralph in the session that started a parallel plan run (where no loop of its own runs):
// the run is cancelled. No story starts any more; each running story's loop is cancelled in its slot
// and its work committed on its branch as the slot settles it; then the slots go (issue 40).
import type { RalphContext } from "../engine/context.js"
import type { ActResult } from "./acts.js"

/** The run cancelled, if this session started the run under way; undefined otherwise. */
export function cancelParallelRun(ctx: RalphContext, sessionID: string): ActResult | undefined {
  const run = ctx.parallel.current()
  if (!run || run.fromSession !== sessionID) return undefined
  ctx.parallel.cancel("/cancel-ralph").catch((error: unknown) => {
    ctx.api.log("error", `could not cancel the parallel run: ${String(error)}`)
  })
  const running = run.running.map((r) => r.story)
  return {
    done: true,
    title: "Ralph · cancelling the parallel run",
    message:
      `No story of ${run.plan.file} starts any more. ` +
      (running.length
        ? `The running ones (${running.join(", ")}) are cancelled in their slots; their work is committed on ` +
          `their branches. A toast says when the run has ended.`
        : "The run ends now."),
    variant: "warning",
  }
}
