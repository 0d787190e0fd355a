// /ralph --prd [PATH] [task]: the plan file is read and checked; a broken one, or one with every
// story done, starts nothing. Otherwise a plan loop starts on the next story, with the stories the
// file already marks done counted as done.
import { startLoop } from "../actions/start-loop.js"
import type { Settings } from "../config/schema.js"
import type { RalphContext } from "../context.js"
import type { Loop } from "../loop/loop.js"
import { planFirstPrompt } from "../loop/prompts.js"
import { currentStory, type PlanState } from "../plan/plan.js"
import { progressExcerpt } from "../plan/progress-log.js"
import { readPlanFile, writePlanBack } from "../store/plan-file.js"
import { ProgressFile } from "../store/progress-file.js"

export type PlanStart = { ok: true; loop: Loop; prompt: string } | { ok: false; error: string; variant: "error" | "warning" }

/** The plan of /ralph --prd [PATH], with the stories the file marks done; or why it cannot be worked on. */
export async function planToWork(ctx: RalphContext, args: { overrides: Partial<Settings>; prd: string | true }): Promise<{ ok: true; plan: PlanState; project?: string } | { ok: false; error: string; variant: "error" | "warning" }> {
  const path = args.prd === true ? (args.overrides.prdPath ?? ctx.settings.current.prdPath) : args.prd
  const read = await readPlanFile(ctx.directory, path)
  if (!read.ok) return { ok: false, error: read.message, variant: "error" }
  const plan: PlanState = {
    file: read.file,
    shape: read.plan.shape,
    stories: read.plan.stories,
    done: read.plan.stories.filter((s) => read.plan.doneInFile.includes(s.id)).map((s) => ({ id: s.id, iteration: 0, checks: [] })),
  }
  if (!currentStory(plan)) return { ok: false, error: `every story of the plan ${read.file} is already done (${plan.stories.length} of ${plan.stories.length})`, variant: "warning" }
  return { ok: true, plan, ...(read.plan.project ? { project: read.plan.project } : {}) }
}

export async function startPlan(ctx: RalphContext, sessionID: string, args: { task: string; overrides: Partial<Settings>; prd: string | true }): Promise<PlanStart> {
  const read = await planToWork(ctx, args)
  if (!read.ok) return read
  const { plan } = read
  const task = args.task || `Implement the plan in ${plan.file}${read.project ? ` (${read.project})` : ""}`
  const loop = await startLoop(ctx, sessionID, task, args.overrides, plan)
  // The first story's in-progress mark (and seed 003's plan status), where the file has them, before it is worked on.
  const marked = await writePlanBack(ctx.directory, plan).catch((error: unknown) => ({ problem: String(error) }))
  if ("problem" in marked) ctx.api.log("warn", `could not mark the plan's first story: ${marked.problem}`, { session: sessionID })
  const progress = progressExcerpt(await new ProgressFile(ctx.directory).read())
  return { ok: true, loop, prompt: planFirstPrompt(loop, progress) }
}
