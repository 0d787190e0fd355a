// /ralph --prd --parallel N: which stories start now, and what each one's worktree loop is told.
// A story starts when every story it depends on is done (merged into the user's branch) and
// neither it nor too many others run. Pure.
import { createHash } from "node:crypto"
import { z } from "zod"
import { invalidName } from "./names.js"
import { readyStories, planStateSchema, type PlanState, type Story } from "../plan/plan.js"

const runningStory = z.object({ story: z.string(), worktree: z.string() })
const failedStory = z.object({ story: z.string(), reason: z.string() })

/**
 * Lists by story, never objects keyed by a story's id: an id from the plan file (`__proto__`,
 * `constructor`) is no safe key. A file written before kept such objects; they are read as lists.
 */
const byStory = <T extends z.ZodType>(item: T, field: "worktree" | "reason") =>
  z.preprocess(
    (value) =>
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? Object.entries(value).map(([story, text]) => ({ story, [field]: text }))
        : value,
    z.array(item),
  )

/** A parallel run of a plan, kept by the main instance in `.opencode/ralph-loop/parallel.json`. */
export const parallelRunSchema = z.object({
  /**
   * This run, in each of its worktrees' worktree.json: a record of an earlier run is not this run's (none: a file from
   * before).
   */
  id: z.string().optional(),
  plan: planStateSchema,
  /** Stories running at once at most. */
  parallel: z.int().min(1),
  fromSession: z.string(),
  startedAt: z.number(),
  /** The stories running, and the worktree each one's loop runs in. */
  running: byStory(runningStory, "worktree"),
  /** The stories whose work did not reach the user's branch, and why (their dependents wait for good). */
  failed: byStory(failedStory, "reason"),
  /** Who cancelled the run: no story starts any more, and it ends when its running stories have ended. */
  cancelled: z.string().optional(),
  /** The settings flags of the /ralph that started the run. */
  overrides: z.record(z.string(), z.unknown()).optional(),
})
export type ParallelRun = z.infer<typeof parallelRunSchema>

/**
 * Whether a worktree (its worktree.json) was made by this run: an archive an earlier run left under the same name is
 * not.
 */
export function madeByRun(
  run: Pick<ParallelRun, "id" | "startedAt">,
  worktree: { run?: string | undefined; createdAt: number },
): boolean {
  // A run from before runs had ids: its worktrees were made after it started.
  return run.id !== undefined ? worktree.run === run.id : worktree.createdAt >= run.startedAt
}

/** The stories to start now, in the order a plan loop would take them. */
export function storiesToStart(run: ParallelRun, limit: number): Story[] {
  if (run.cancelled !== undefined) return []
  const done = new Set(run.plan.done.map((d) => d.id))
  const busy = new Set([...run.running.map((r) => r.story), ...run.failed.map((f) => f.story)])
  const free = Math.min(run.parallel, limit) - run.running.length
  if (free <= 0) return []
  return readyStories(run.plan.stories, done)
    .filter((s) => !busy.has(s.id))
    .slice(0, free)
}

/** Nothing runs and nothing can start: every story is done, or the rest wait on failed ones. */
export const runOver = (run: ParallelRun): boolean =>
  run.running.length === 0 &&
  storiesToStart({ ...run, parallel: Number.MAX_SAFE_INTEGER }, Number.MAX_SAFE_INTEGER).length === 0

/** A story's worktree loop: one task, this story, told what the plan around it is. */
export function storyTask(plan: PlanState, story: Story): string {
  return [
    `Story ${story.id} of the plan ${plan.file}: ${story.title}`,
    ...(story.description?.trim() ? ["", story.description.trim()] : []),
    "",
    "Acceptance criteria:",
    ...(story.acceptanceCriteria.length
      ? story.acceptanceCriteria.map((c) => `- ${c}`)
      : ["- (none listed: the title and description say what is wanted)"]),
    "",
    `Other stories of the plan run in their own worktrees at the same time: work on this story only, and do not ` +
      `edit ${plan.file} (the plugin marks the story done there once your work is merged).`,
  ].join("\n")
}

const SLUG_LENGTH = 40

/**
 * The worktree name of a story's loop (its branch `ralph/<name>`), distinct for each story of the
 * plan and one git takes: `story-<id>` in lower case where the id is already such a name and no
 * other story's id differs from it only in case; otherwise what is left of the id, cut to 40
 * characters, then `--` and a hash of the id (`US 1` → `story-us-1--2f5014dd`). A plain name never
 * has `--`, so it never meets a hashed one.
 */
export function storyWorktreeName(id: string, stories: readonly Pick<Story, "id">[]): string {
  const lower = id.toLowerCase()
  const slug = slugOf(lower)
  const plain = `story-${slug}`
  const sameInLowerCase = stories.some((s) => s.id !== id && s.id.toLowerCase() === lower)
  if (slug === lower && !sameInLowerCase && invalidName(plain) === undefined) return plain
  return (
    `story-${slugOf(slug.slice(0, SLUG_LENGTH)) || "x"}--` +
    `${createHash("sha256").update(id).digest("hex").slice(0, 8)}`
  )
}

/** An id as letters, digits, `.`, `_` and single `-`, without `..` or a separator at either end. */
function slugOf(lower: string): string {
  // Cut before the replacing: an id may be long, and only its start is kept.
  const kept = lower
    .slice(0, SLUG_LENGTH + 1)
    .replace(/[^a-z0-9._]+/g, "-")
    .replace(/\.{2,}/g, ".")
  let start = 0
  let end = kept.length
  while (start < end && "-._".includes(kept[start] as string)) start += 1
  while (end > start && "-._".includes(kept[end - 1] as string)) end -= 1
  return kept.slice(start, end)
}
