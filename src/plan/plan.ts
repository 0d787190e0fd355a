// A plan loop's position: the plan's stories as they were read when the loop started, and the
// stories the plugin has seen done (with the iteration and the checks that passed). The story an
// iteration works on is always derived from these two: the next one not done whose dependencies
// are done, lowest `priority` first, then file order. Pure.
import { z } from "zod"
import { checkSchema, type CheckConfig } from "../config/schema.js"
import { evidenceSchema } from "../evidence/record.js"

/**
 * Where the file keeps its stories, as the reader found it (`userStories`, `stories`, `tasks`, `prd.tasks`, `[]`, …).
 */
const planShapeSchema = z.string().min(1)

const storySchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  description: z.string().optional(),
  acceptanceCriteria: z.array(z.string()),
  priority: z.number().optional(),
  dependsOn: z.array(z.string()),
  /** The story's own checks, run with the loop's when it is claimed done. */
  checks: z.array(checkSchema),
})
export type Story = z.infer<typeof storySchema>

const storyDoneSchema = z.object({
  id: z.string(),
  /** The iteration in which the plugin marked it done; 0: it was done before the loop began. */
  iteration: z.int().min(0),
  /** The checks that passed when it was marked. */
  checks: z.array(z.string()),
  /** What marking it done rested on (issue 39); absent: marked by an older version, or by `plan merge`. */
  evidence: evidenceSchema.optional(),
})
export type StoryDone = z.infer<typeof storyDoneSchema>

/** A plan loop's stories (as read at its start) and the ones the plugin marked done. */
export const planStateSchema = z.object({
  /** The plan file, relative to the project. */
  file: z.string().min(1),
  shape: planShapeSchema,
  /** In file order. */
  stories: z.array(storySchema),
  /** In the order the stories were done. */
  done: z.array(storyDoneSchema),
  /**
   * `/ralph --prd --story ID`: the one story this loop works on. It completes when that story is
   * done and never moves on to another; its work goes on the branch `ralph/story-<id>`, and the
   * plan file is left as it is (`ralph-loop plan merge` marks the story done where the branch is merged).
   */
  only: z.string().min(1).optional(),
})
export type PlanState = z.infer<typeof planStateSchema>

const isDone = (plan: PlanState, id: string): boolean => plan.done.some((d) => d.id === id)

/** The story to work on next, or undefined when every story is done. */
export function nextStory(stories: readonly Story[], done: ReadonlySet<string>): Story | undefined {
  let best: { story: Story; index: number } | undefined
  stories.forEach((story, index) => {
    if (done.has(story.id) || !story.dependsOn.every((id) => done.has(id))) return
    const rank = story.priority ?? Number.POSITIVE_INFINITY
    const bestRank = best?.story.priority ?? Number.POSITIVE_INFINITY
    if (!best || rank < bestRank || (rank === bestRank && index < best.index)) best = { story, index }
  })
  return best?.story
}

/**
 * The stories that can start now — not done, every dependency done — in the order the loop would
 * take them: lowest `priority` first, then file order (what `nextStory` picks first among them).
 */
export function readyStories(stories: readonly Story[], done: ReadonlySet<string>): Story[] {
  const rank = (story: Story) => story.priority ?? Number.POSITIVE_INFINITY
  return stories
    .map((story, index) => ({ story, index }))
    .filter(({ story }) => !done.has(story.id) && story.dependsOn.every((id) => done.has(id)))
    .sort((a, b) => rank(a.story) - rank(b.story) || a.index - b.index)
    .map(({ story }) => story)
}

/** Why a loop of `id` alone (--story) cannot start on this plan: no such story, done already, or waiting for others. */
export function onlyStoryProblem(plan: PlanState, id: string): string | undefined {
  const story = plan.stories.find((s) => s.id === id)
  if (!story) {
    const ids = plan.stories.map((s) => s.id)
    return (
      `the plan ${plan.file} has no story "${id}" (its stories: ${ids.slice(0, 20).join(", ")}` +
      `${ids.length > 20 ? ", …" : ""})`
    )
  }
  if (isDone(plan, id)) return `story ${id} of the plan ${plan.file} is done already`
  const waiting = story.dependsOn.filter((dep) => !isDone(plan, dep))
  if (waiting.length > 0)
    return (
      `story ${id} is not ready: it depends on ${waiting.join(", ")}, not done in ${plan.file} (ralph-loop ` +
      `plan ready lists the stories that can start)`
    )
  return undefined
}

/** The stories not done yet, in the order the loop would take them. */
export function workOrder(stories: readonly Story[], done: ReadonlySet<string>): Story[] {
  const taken = new Set(done)
  const order: Story[] = []
  for (let story = nextStory(stories, taken); story; story = nextStory(stories, taken)) {
    order.push(story)
    taken.add(story.id)
  }
  return order
}

/** The story the current iteration works on (undefined: the plan is done — or, with `only`, that story is). */
export function currentStory(plan: PlanState): Story | undefined {
  const done = new Set(plan.done.map((d) => d.id))
  if (plan.only === undefined) return nextStory(plan.stories, done)
  return done.has(plan.only) ? undefined : plan.stories.find((s) => s.id === plan.only)
}

/** "2 of 5": the current story's place, counting the stories done before it. */
export const storyPosition = (plan: PlanState): { number: number; total: number } => ({
  number: Math.min(plan.done.length + 1, plan.stories.length),
  total: plan.stories.length,
})

/** The plugin verified the current story in `iteration` (its checks: `checks` passed). */
export function markCurrentDone(plan: PlanState, iteration: number, checks: string[]): PlanState {
  const story = currentStory(plan)
  if (!story) return plan
  return { ...plan, done: [...plan.done, { id: story.id, iteration, checks }] }
}

/** The story done last, if it was done in `iteration`. */
export const doneIn = (plan: PlanState, iteration: number): StoryDone | undefined => {
  const last = plan.done.at(-1)
  return last && last.iteration === iteration ? last : undefined
}

/** The loop's checks plus the current story's own. */
export function checksFor(settings: { checks: CheckConfig[] }, plan: PlanState | undefined): CheckConfig[] {
  const own = plan ? (currentStory(plan)?.checks ?? []) : []
  return [...settings.checks, ...own]
}
