// /ralph --prd [PATH] [task]: the plan file is read and checked; a broken one, or one with every
// story done, starts nothing. Otherwise a plan loop starts on the next story, with the stories the
// file already marks done counted as done. With --story ID the loop works that story only: it must
// be a story of the plan, not done, with every dependency done, and its branch must not exist yet.
import { startLoop } from "../engine/start-loop.js"
import type { Settings } from "../config/schema.js"
import type { RalphContext } from "../engine/context.js"
import type { Loop } from "../loop/loop.js"
import { planFirstPrompt } from "../loop/prompts.js"
import { currentStory, onlyStoryProblem, type PlanState } from "../plan/plan.js"
import { storyBranch } from "../worktrees/story-branch.js"
import { storyBranchProblem } from "../worktrees/story-commit.js"
import { progressExcerpt } from "../store/progress-log.js"
import { readPlanFile, writePlanBack } from "../plan/plan-file.js"
import { ProgressFile } from "../store/progress-file.js"

export type PlanStart =
  | { ok: true; loop: Loop; prompt: string }
  | { ok: false; error: string; variant: "error" | "warning" }

/** The plan of /ralph --prd [PATH], with the stories the file marks done; or why it cannot be worked on. */
export async function planToWork(
  ctx: RalphContext,
  args: { overrides: Partial<Settings>; prd: string | true; story?: string | undefined },
): Promise<
  { ok: true; plan: PlanState; project?: string } | { ok: false; error: string; variant: "error" | "warning" }
> {
  const path = args.prd === true ? (args.overrides.prdPath ?? ctx.settings.current.prdPath) : args.prd
  const read = await readPlanFile(ctx.directory, path)
  if (!read.ok) return { ok: false, error: read.message, variant: "error" }
  const plan: PlanState = {
    file: read.file,
    shape: read.plan.shape,
    stories: read.plan.stories,
    done: read.plan.stories
      .filter((s) => read.plan.doneInFile.includes(s.id))
      .map((s) => ({ id: s.id, iteration: 0, checks: [] })),
  }
  if (args.story !== undefined) {
    const refused =
      onlyStoryProblem(plan, args.story) ??
      (await storyBranchProblem(ctx.directory, storyBranch(args.story, plan.stories)))
    if (refused) return { ok: false, error: refused, variant: "error" }
    return {
      ok: true,
      plan: { ...plan, only: args.story },
      ...(read.plan.project ? { project: read.plan.project } : {}),
    }
  }
  if (!currentStory(plan))
    return {
      ok: false,
      error: `every story of the plan ${read.file} is already done (${plan.stories.length} of ${plan.stories.length})`,
      variant: "warning",
    }
  return { ok: true, plan, ...(read.plan.project ? { project: read.plan.project } : {}) }
}

export async function startPlan(
  ctx: RalphContext,
  sessionID: string,
  args: { task: string; overrides: Partial<Settings>; prd: string | true; story?: string | undefined },
): Promise<PlanStart> {
  const read = await planToWork(ctx, args)
  if (!read.ok) return read
  const { plan } = read
  const task =
    args.task ||
    (plan.only !== undefined
      ? `Implement story ${plan.only} of the plan in ${plan.file}`
      : `Implement the plan in ${plan.file}`) + (read.project ? ` (${read.project})` : "")
  const loop = await startLoop(ctx, sessionID, task, args.overrides, plan)
  // The first story's in-progress mark (and seed 003's plan status), where the file has them, before
  // it is worked on — not for one story alone, whose branch leaves the plan file as it is.
  const marked =
    plan.only !== undefined
      ? { changed: [] }
      : await writePlanBack(ctx.directory, plan).catch((error: unknown) => ({ problem: String(error) }))
  if ("problem" in marked)
    ctx.api.log("warn", `could not mark the plan's first story: ${marked.problem}`, { session: sessionID })
  const progress = progressExcerpt(await new ProgressFile(ctx.directory).read())
  return { ok: true, loop, prompt: planFirstPrompt(loop, progress) }
}
