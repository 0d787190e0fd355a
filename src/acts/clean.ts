// `ralph-loop clean` asked of this OpenCode through the control channel, because it holds the
// project's lease: the clean runs here as a job (src/clean/clean-job.ts) — after any merge under way,
// with the loops this OpenCode runs kept whatever their files say — and the answer is what it said.
import { cleanJob } from "../clean/clean-job.js"
import type { RalphContext } from "../engine/context.js"
import type { ActResult } from "./acts.js"

export async function cleanProjectAct(ctx: RalphContext, days: number, force: boolean): Promise<ActResult> {
  if (ctx.worktree())
    return {
      done: false,
      title: "Ralph · clean refused",
      message: "ralph-loop clean cleans the project, not a worktree loop's folder: run it in the project.",
    }
  const live = ctx.manager.all().filter((loop) => loop.phase !== "stopped")
  const request = { project: ctx.directory, days, force, summaryPath: ctx.settings.current.summaryPath, live }
  let result: { ok: boolean; lines: string[] } | undefined
  const job = cleanJob(request, ctx.worktrees.merges)
  await ctx.runner.worktreeJobNow(
    "ralph-loop clean",
    (function* () {
      result = yield* job
    })(),
  )
  if (!result)
    return { done: false, title: "Ralph · clean failed", message: "The clean did not finish (see OpenCode's log)." }
  return { done: result.ok, title: "Ralph · clean", message: result.lines.join("\n") }
}
