// A --story loop's promise to CI: when it completes, the story's work is committed on its branch
// ralph/story-<id>, which the job pushes. The plugin makes the branch before it says the loop
// completed; when it could not (a branch `ralph` in the way, git failing), the work is only in this
// work tree and the push says "Everything up-to-date" — so the run must not exit 0.
import type { Loop } from "../../loop/loop.js"
import { storyBranch } from "../../worktrees/story-branch.js"
import { git } from "../../git/run.js"

/** Why a completed --story loop's branch is not there (undefined: it is, or the loop is no --story loop). */
export async function storyBranchMissing(project: string, loop: Loop): Promise<string | undefined> {
  const only = loop.plan?.only
  if (!loop.plan || only === undefined || loop.stopReason !== "completed") return undefined
  const branch = storyBranch(only, loop.plan.stories)
  const found = await git(project, ["rev-parse", "--verify", "-q", `refs/heads/${branch}^{commit}`], { answers: [1] })
  if (found.ok && found.stdout.trim()) return undefined
  const why = found.ok ? "it does not exist" : `git could not say: ${found.reason}`
  return (
    `story ${only} is done, but its branch ${branch} was not made (${why}): its work is in the work tree ` +
    `only, uncommitted`
  )
}
