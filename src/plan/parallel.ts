// /ralph --prd --parallel N: which stories start now, and what each one's worktree loop is told.
// A story starts when every story it depends on is done (merged into the user's branch) and
// neither it nor too many others run. Pure.
import { z } from "zod"
import { workOrder, planStateSchema, type PlanState, type Story } from "./plan.js"

/** A parallel run of a plan, kept by the main instance in `.opencode/ralph-loop/parallel.json`. */
export const parallelRunSchema = z.object({
  plan: planStateSchema,
  /** Stories running at once at most. */
  parallel: z.int().min(1),
  fromSession: z.string(),
  startedAt: z.number(),
  /** Story id → the worktree its loop runs in. */
  running: z.record(z.string(), z.string()),
  /** Story id → why its work did not reach the user's branch (its dependents wait for good). */
  failed: z.record(z.string(), z.string()),
  /** The settings flags of the /ralph that started the run. */
  overrides: z.record(z.string(), z.unknown()).optional(),
})
export type ParallelRun = z.infer<typeof parallelRunSchema>

/** The stories to start now, in the order a plan loop would take them. */
export function storiesToStart(run: ParallelRun, limit: number): Story[] {
  const done = new Set(run.plan.done.map((d) => d.id))
  const busy = new Set([...Object.keys(run.running), ...Object.keys(run.failed)])
  const free = Math.min(run.parallel, limit) - Object.keys(run.running).length
  if (free <= 0) return []
  const ready = run.plan.stories.filter((s) => !done.has(s.id) && !busy.has(s.id) && s.dependsOn.every((id) => done.has(id)))
  const order = new Map(workOrder(run.plan.stories, done).map((s, i) => [s.id, i]))
  return ready.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0)).slice(0, free)
}

/** Nothing runs and nothing can start: every story is done, or the rest wait on failed ones. */
export const runOver = (run: ParallelRun): boolean => Object.keys(run.running).length === 0 && storiesToStart({ ...run, parallel: Number.MAX_SAFE_INTEGER }, Number.MAX_SAFE_INTEGER).length === 0

/** A story's worktree loop: one task, this story, told what the plan around it is. */
export function storyTask(plan: PlanState, story: Story): string {
  return [
    `Story ${story.id} of the plan ${plan.file}: ${story.title}`,
    ...(story.description?.trim() ? ["", story.description.trim()] : []),
    "",
    "Acceptance criteria:",
    ...(story.acceptanceCriteria.length ? story.acceptanceCriteria.map((c) => `- ${c}`) : ["- (none listed: the title and description say what is wanted)"]),
    "",
    `Other stories of the plan run in their own worktrees at the same time: work on this story only, and do not edit ${plan.file} (the plugin marks the story done there once your work is merged).`,
  ].join("\n")
}

/** The worktree name of a story's loop. (Trailing dashes are tried only where their run begins.) */
export const storyWorktreeName = (id: string): string => `story-${id.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|(?<!-)-+$/g, "") || "x"}`.slice(0, 64)
