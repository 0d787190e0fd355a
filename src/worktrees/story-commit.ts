import { headCommit } from "../git/head.js"
import { commitIdentity } from "../git/identity.js"
import { pathList } from "../git/path-list.js"
import { git, GitError, gitText, notARepository } from "../git/run.js"
import { withTempIndex } from "../git/temp-index.js"
import { loopWorkPaths, type StoryCommit } from "../changes/auto-commit.js"

type LoopWork = Parameters<typeof loopWorkPaths>[1]

/**
 * Why a story's branch cannot be made in `directory` (undefined: it can): no commit to start from, or the branch
 * exists.
 */
export async function storyBranchProblem(directory: string, branch: string): Promise<string | undefined> {
  const from = `--story commits the story's work on ${branch} from HEAD, and`
  const args = ["rev-parse", "--verify", "-q", "HEAD^{commit}"]
  const head = await git(directory, args, { answers: [1] })
  if (notARepository(head)) return `${from} the project is not in a git repository`
  if (!head.ok) throw new GitError(args, head)
  if (!head.stdout.trim()) return `${from} the repository has no commit yet`
  const taken = await git(directory, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`], { answers: [1] })
  if (!taken.ok) throw new GitError(["rev-parse"], taken)
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
  const head = await headCommit(directory)
  const from = `--story commits the story's work on ${branch} from HEAD`
  if (!head) return { skipped: `${from}, and the repository has no commit yet` }
  const identity = await commitIdentity(directory)
  return withTempIndex(directory, async (env) => {
    await gitText(directory, ["read-tree", head], { env })
    // Plain paths (update-index takes no pathspec magic): each as the work tree has it, or removed.
    const input = pathList(paths)
    if (paths.length > 0)
      await gitText(directory, ["update-index", "--add", "--remove", "-z", "--stdin"], { env, input })
    const tree = (await gitText(directory, ["write-tree"], { env })).trim()
    const commit = (
      await gitText(directory, ["commit-tree", tree, "-p", head, "-m", message], { env: identity })
    ).trim()
    // The empty old value: the branch must not exist (a run beside this one made it meanwhile).
    await gitText(directory, ["update-ref", "-m", `ralph-loop: ${message}`, `refs/heads/${branch}`, commit, ""])
    return { committed: `${branch} ${commit.slice(0, 7)}`, files: paths.length }
  })
}
