// The branch a story's work goes on when it is run alone (`/ralph --prd --story ID`, and so
// `ralph-loop run --prd … --story …` on a CI runner): `ralph/story-<id>`, the very name a parallel
// run gives the story's worktree branch (storyWorktreeName), so one story has one branch however
// it was run. `ralph-loop plan merge` finds a branch's story by the same rule. Pure.
import { branchOf } from "./names.js"
import { storyWorktreeName } from "./parallel.js"
import type { Story } from "../plan/plan.js"

/** Every story branch begins with this (`plan merge` takes these by default). */
export const STORY_BRANCH_PREFIX = "ralph/story-"

export const storyBranch = (id: string, stories: readonly Pick<Story, "id">[]): string =>
  branchOf(storyWorktreeName(id, stories))

/** The story of the plan whose branch `branch` is, if any. */
export const storyOfBranch = (branch: string, stories: readonly Pick<Story, "id">[]): string | undefined =>
  stories.find((s) => storyBranch(s.id, stories) === branch)?.id
