// `ralph-loop plan merge`: which story branches to merge, in which order, and what becomes of the
// plan. A branch is a story's when its name (without a remote's prefix) is that story's branch
// (storyBranch). Branches are merged in the plan's work order, so a story's dependencies come
// before it. A branch merged already only marks its story done (a run cut off between its merges
// and its plan) — one that holds no commit of its own is refused, its story not marked; by default
// the branch of a story the plan marks done is left alone. Pure.
import { readyStories, workOrder, type Story } from "../plan/plan.js"
import { storyOfBranch } from "./story-branch.js"

export interface StoryBranchRef {
  /** As the user or git names it: `ralph/story-s1`, `origin/ralph/story-s1`. */
  name: string
  /** Its history is in the current branch already. */
  merged: boolean
  /**
   * Merged, and its tip is a commit of the current branch's own line: it holds no commit of its own (made from
   * the branch and never committed on), so nothing of its story was merged.
   */
  empty: boolean
  /** Named on the command line (else found among `ralph/story-*`). */
  named: boolean
}

export type MergeStep =
  | { kind: "merge"; branch: string; story: string }
  /** Merged already: the story is marked done, nothing is merged. */
  | { kind: "mark"; branch: string; story: string }
  | { kind: "skip"; branch: string; reason: string }
  | { kind: "refuse"; branch: string; reason: string }

/** The branch name without a remote's prefix: `origin/ralph/story-s1` → `ralph/story-s1`. */
export function localName(name: string): string {
  if (name.startsWith("ralph/")) return name
  const at = name.indexOf("/ralph/")
  return at >= 0 ? name.slice(at + 1) : name
}

/** What to do with each branch, the merges in the plan's work order. */
export function mergeSteps(
  stories: readonly Story[],
  done: ReadonlySet<string>,
  branches: readonly StoryBranchRef[],
): MergeStep[] {
  const order = new Map(
    [...stories.filter((s) => done.has(s.id)), ...workOrder(stories, done)].map((s, i) => [s.id, i]),
  )
  const steps: Array<{ step: MergeStep; rank: number }> = []
  const taken = new Set<string>()
  for (const branch of branches) {
    const story = storyOfBranch(localName(branch.name), stories)
    if (story === undefined) {
      steps.push({
        step: { kind: "refuse", branch: branch.name, reason: "it is no story's branch in this plan" },
        rank: -1,
      })
      continue
    }
    if (taken.has(story)) {
      steps.push({
        step: { kind: "skip", branch: branch.name, reason: `another branch of story ${story} is merged in this run` },
        rank: -1,
      })
      continue
    }
    taken.add(story)
    const rank = order.get(story) ?? 0
    if (branch.merged && branch.empty && !done.has(story)) {
      const reason =
        `it holds no commit of its own (its tip is a commit of the branch it would be merged into): none of ` +
        `story ${story}'s work is on it, so the story stays not done`
      steps.push({ step: { kind: "refuse", branch: branch.name, reason }, rank })
    } else if (branch.merged) {
      if (!done.has(story)) steps.push({ step: { kind: "mark", branch: branch.name, story }, rank })
      else if (branch.named)
        steps.push({
          step: { kind: "skip", branch: branch.name, reason: `it is merged already and story ${story} is done` },
          rank,
        })
    } else if (done.has(story) && !branch.named) {
      steps.push({
        step: {
          kind: "skip",
          branch: branch.name,
          reason: `story ${story} is done in the plan already (name the branch to merge it all the same)`,
        },
        rank,
      })
    } else steps.push({ step: { kind: "merge", branch: branch.name, story }, rank })
  }
  return steps.sort((a, b) => a.rank - b.rank).map((s) => s.step)
}

/** The stories ready after the merges that were not ready before. */
export function becameReady(
  stories: readonly Story[],
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
): string[] {
  const was = new Set(readyStories(stories, before).map((s) => s.id))
  return readyStories(stories, after)
    .map((s) => s.id)
    .filter((id) => !was.has(id))
}
