// The git side of `ralph-loop plan merge`: the story branches there are (local `ralph/story-*`, and
// a remote's `<remote>/ralph/story-*` that has no local branch of the same name), whether the work
// tree may take merges, and one merge — a merge commit as a parallel run makes (mergeBranch), a
// conflict found beforehand without touching the work tree (previewMerge), and a merge that fails
// all the same aborted, so the user's tree is as it was.
import { previewMerge } from "../git/merge-preview.js"
import { git, GitError, gitAsks, gitText, notARepository } from "../git/run.js"
import { GitVersionError, requireMergeTree } from "../git/version.js"
import { localName, type StoryBranchRef } from "./plan-merge.js"
import { STORY_BRANCH_PREFIX } from "./story-branch.js"
import { mergeBranch } from "./worktree-git.js"

/**
 * Why merges cannot be made here (undefined: they can): no repository, no branch, a merge under way, or tracked
 * changes.
 */
export async function mergeTreeProblem(directory: string): Promise<string | undefined> {
  const head = await git(directory, ["symbolic-ref", "-q", "--short", "HEAD"], { answers: [1] })
  if (!head.ok)
    return notARepository(head) ? "the project is not in a git repository" : `git symbolic-ref: ${head.reason}`
  if (!head.stdout.trim()) return "HEAD is detached: check out the branch the stories are merged into"
  if (await gitAsks(directory, ["rev-parse", "-q", "--verify", "MERGE_HEAD"]))
    return "a merge is under way: finish it (git commit) or abort it (git merge --abort) first"
  const changed = (await gitText(directory, ["status", "--porcelain", "--untracked-files=no", "-z", "--no-renames"]))
    .split("\0")
    .filter(Boolean)
    .map((line) => line.slice(3))
  if (changed.length > 0)
    return (
      `the work tree has uncommitted changes to tracked files ` +
      `(${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ", …" : ""}): commit them or put them aside first`
    )
  return undefined
}

/** Why this git cannot merge a story branch (too old for `merge-tree --write-tree`), or undefined when it can. */
export async function mergeToolProblem(directory: string): Promise<string | undefined> {
  try {
    await requireMergeTree(directory)
    return undefined
  } catch (error) {
    if (error instanceof GitVersionError) return error.message
    throw error
  }
}

/** The current branch's name. */
export const currentBranchName = async (directory: string): Promise<string> =>
  (await gitText(directory, ["symbolic-ref", "--short", "HEAD"])).trim()

/** The story branches to consider: those named (a missing one in `missing`), else every `ralph/story-*` found. */
export async function storyBranchRefs(
  directory: string,
  named: readonly string[],
): Promise<{ refs: StoryBranchRef[]; missing: string[] }> {
  const refs: StoryBranchRef[] = []
  const missing: string[] = []
  if (named.length > 0) {
    for (const name of named) {
      // --end-of-options: a name that begins with a dash is a name.
      const args = ["rev-parse", "-q", "--verify", "--end-of-options", `${name}^{commit}`]
      const found = await git(directory, args, { answers: [1] })
      if (!found.ok) throw new GitError(args, found)
      if (!found.stdout.trim()) missing.push(name)
      else refs.push({ name, ...(await mergedState(directory, name)), named: true })
    }
    return { refs, missing }
  }
  const listed = (
    await gitText(directory, [
      "for-each-ref",
      "--format=%(refname)",
      `refs/heads/${STORY_BRANCH_PREFIX}*`,
      `refs/remotes/*/${STORY_BRANCH_PREFIX}*`,
    ])
  )
    .split("\n")
    .filter(Boolean)
  const local = new Set(
    listed.filter((ref) => ref.startsWith("refs/heads/")).map((ref) => ref.slice("refs/heads/".length)),
  )
  for (const ref of listed) {
    const name = ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref.slice("refs/remotes/".length)
    if (ref.startsWith("refs/remotes/") && local.has(localName(name))) continue
    refs.push({ name, ...(await mergedState(directory, name)), named: false })
  }
  return { refs, missing }
}

/**
 * Whether the branch's history is in HEAD's, and — when it is — whether it holds no commit of its own: its tip
 * is a commit of HEAD's own (first-parent) line, where a branch made from it that was never committed on stays.
 */
async function mergedState(directory: string, name: string): Promise<Pick<StoryBranchRef, "merged" | "empty">> {
  if (!(await gitAsks(directory, ["merge-base", "--is-ancestor", "--end-of-options", name, "HEAD"])))
    return { merged: false, empty: false }
  const tip = (await gitText(directory, ["rev-parse", "--verify", "--end-of-options", `${name}^{commit}`])).trim()
  // HEAD's own line down to the tip: the oldest of these has the tip as its first parent when the tip is on it.
  const line = (await gitText(directory, ["rev-list", "--first-parent", "--parents", `${tip}..HEAD`]))
    .split("\n")
    .filter(Boolean)
  const oldest = line.at(-1)?.split(" ")[1]
  return { merged: true, empty: line.length === 0 || oldest === tip }
}

export type BranchMerge = { merged: true } | { conflict: string[] } | { failed: string }

/**
 * Merges `branch` into the current branch with a merge commit; a conflict is found first and nothing is merged then.
 */
export async function mergeStoryBranch(directory: string, branch: string, message: string): Promise<BranchMerge> {
  const preview = await previewMerge(directory, branch)
  if (!preview.clean) return { conflict: preview.conflicts }
  try {
    await mergeBranch(directory, branch, message)
    return { merged: true }
  } catch (error) {
    // A hook or anything else that stopped git mid-merge: the tree goes back to where it was.
    if (await gitAsks(directory, ["rev-parse", "-q", "--verify", "MERGE_HEAD"]))
      await gitText(directory, ["merge", "--abort"])
    return { failed: error instanceof Error ? error.message : String(error) }
  }
}
