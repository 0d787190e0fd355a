// A merge's outcome, found without touching the work tree or the index: `git merge-tree
// --write-tree` merges in git's object store and answers with the merged tree, or the files that
// would conflict. `ralph-loop plan merge` and the worktree strategy `merge` ask before they merge.
import { git, GitError } from "./run.js"
import { requireMergeTree } from "./version.js"

export type MergePreview = { clean: true; tree: string } | { clean: false; conflicts: string[] }

/**
 * What merging `branch` into `into` (HEAD unless named) would give: a clean merge's tree, or the
 * files left in conflict. A GitVersionError when git is too old to tell; a GitError when git fails.
 */
export async function previewMerge(repo: string, branch: string, into = "HEAD"): Promise<MergePreview> {
  await requireMergeTree(repo)
  const args = ["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", into, branch]
  // Exit 1 is an answer: the merge conflicts.
  const result = await git(repo, args, { answers: [1] })
  if (!result.ok) throw new GitError(args, result)
  // -z: the tree's id, then each conflicted file, NUL-terminated.
  const [tree = "", ...files] = result.stdout.split("\0")
  if (result.code === 0) return { clean: true, tree: tree.trim() }
  return { clean: false, conflicts: [...new Set(files.filter(Boolean))] }
}
