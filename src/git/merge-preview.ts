// A merge's outcome, found without touching the work tree or the index: `git merge-tree
// --write-tree` merges in git's object store and answers with the merged tree, or the files that
// would conflict. `ralph-loop plan merge` and the worktree strategy `merge` ask before they merge.
import { git, GitError } from "./run.js"
import { requireMergeTree } from "./version.js"

/** A tree's id (SHA-1 or SHA-256). */
const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

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
  // git answers exit 1 also when it cannot merge at all (a branch that is not there), with no tree:
  // that is a failure, never "clean" nor "no conflicts".
  if (!OBJECT_ID.test(tree.trim())) {
    const reason = result.stderr.trim().split("\n").slice(-3).join(" ") || "it gave no merged tree"
    throw new GitError(args, { ...result, ok: false, reason })
  }
  if (result.code === 0) return { clean: true, tree: tree.trim() }
  return { clean: false, conflicts: [...new Set(files.filter(Boolean))] }
}
