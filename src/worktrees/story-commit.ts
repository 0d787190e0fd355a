// /ralph --prd --story ID: once the story is verified done, the loop's work is committed on the
// branch `ralph/story-<id>`, made from HEAD with git's plumbing and a temporary index — the user's
// branch, HEAD, index and work tree stay as they are (the work is still there, uncommitted), so a CI
// job can `git push origin ralph/story-<id>` at once. The loop's work is what autoCommit would commit
// (loopWorkPaths: never a file of the user's), without the plan file: the merge marks the story done
// there, and story branches that all left the plan alone merge without conflicting on it. A story
// that changed nothing still gets its commit (an empty one): the branch says the story is done.
// No hook runs (commit-tree is plumbing).
import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { isAbsolute, join } from "node:path"
import { git, gitText } from "../git/run.js"
import { loopWorkPaths, type StoryCommit } from "../changes/auto-commit.js"
import { identity } from "./worktree-git.js"

type LoopWork = Parameters<typeof loopWorkPaths>[1]

/**
 * Why a story's branch cannot be made in `directory` (undefined: it can): no commit to start from, or the branch
 * exists.
 */
export async function storyBranchProblem(directory: string, branch: string): Promise<string | undefined> {
  const head = await git(directory, ["rev-parse", "--verify", "-q", "HEAD^{commit}"], { answers: [1] })
  if (!head.ok || !head.stdout.trim())
    return `--story commits the story's work on ${branch} from HEAD, and ${head.ok ? "the repository has no commit yet" : "the project is not in a git repository"}`
  const taken = await git(directory, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`], { answers: [1] })
  if (!taken.ok) throw new Error(`git rev-parse: ${taken.reason}`)
  return taken.stdout.trim()
    ? `the branch ${branch} exists already (a run of this story before?): delete it (git branch -D ${branch}) or ` +
        `merge it (ralph-loop plan merge)`
    : undefined
}

/** Commits the loop's work (its own folders `ignore` and the plan file aside) on a new branch `branch` from HEAD. */
export async function commitStoryBranch(
  directory: string,
  loop: LoopWork,
  ignore: readonly string[],
  planFile: string,
  branch: string,
  message: string,
): Promise<StoryCommit> {
  const work = await loopWorkPaths(directory, loop, ignore)
  if ("skipped" in work) return work
  const paths = work.paths.filter((path) => path !== planFile)
  const problem = await storyBranchProblem(directory, branch)
  if (problem) return { skipped: problem }
  const head = (await gitText(directory, ["rev-parse", "--verify", "HEAD^{commit}"])).trim()
  const gitDir = (await gitText(directory, ["rev-parse", "--git-dir"])).trim()
  const index = join(
    isAbsolute(gitDir) ? gitDir : join(directory, gitDir),
    `ralph-story-index-${process.pid}-${randomBytes(4).toString("hex")}`,
  )
  try {
    const env = { GIT_INDEX_FILE: index }
    await gitText(directory, ["read-tree", head], { env })
    // Plain paths (update-index takes no pathspec magic): each as the work tree has it, or removed.
    if (paths.length > 0)
      await gitText(directory, ["update-index", "--add", "--remove", "-z", "--stdin"], {
        env,
        input: paths.map((p) => `${p}\0`).join(""),
      })
    const tree = (await gitText(directory, ["write-tree"], { env })).trim()
    const commit = (
      await gitText(directory, ["commit-tree", tree, "-p", head, "-m", message], { env: await identity(directory) })
    ).trim()
    // The empty old value: the branch must not exist (a run beside this one made it meanwhile).
    await gitText(directory, ["update-ref", "-m", `ralph-loop: ${message}`, `refs/heads/${branch}`, commit, ""])
    return { committed: `${branch} ${commit.slice(0, 7)}`, files: paths.length }
  } finally {
    await rm(index, { force: true })
  }
}
