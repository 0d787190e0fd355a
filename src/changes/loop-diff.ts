// The diff of what a loop changed since it began, for its reviewer: the files it changed (as
// filesChangedSinceStart lists them: not the user's own earlier edits, not the plugin's folders),
// against the HEAD it began at, new files included. Kept small and apart, so it can later diff
// against the loop's start checkpoint instead. The files go to git on its stdin, never as
// arguments: a loop that changed 12,000 files would pass the system's limit on a command line.
import { gitText } from "../git/run.js"
import { withTemporaryIndex } from "../checkpoints/checkpoint-git.js"
import { filesChangedSinceStart } from "./work-tree.js"
import type { FileHashes } from "../loop/changed-files.js"

/** git's empty tree: the base when the loop began in a repository without a commit. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

/** The diff; a git failure throws (it is never read as "no change"). */
export async function diffSinceStart(
  directory: string,
  start: { head?: string | undefined; tree?: string | undefined; files?: FileHashes | undefined },
  ignore: readonly string[],
): Promise<string> {
  const files = await filesChangedSinceStart(directory, start, ignore)
  if (files.length === 0) return ""
  // A temporary index holds the start's HEAD with the changed files as the work tree has them (or
  // removed): its diff against that HEAD is the loop's change, in one call, however many files.
  const diff = await withTemporaryIndex(directory, async (env) => {
    await gitText(directory, start.head ? ["read-tree", start.head] : ["read-tree", "--empty"], { env })
    const input = files.map((f) => `${f.path}\0`).join("")
    await gitText(directory, ["update-index", "--add", "--remove", "-z", "--stdin"], { env, input })
    return gitText(directory, ["diff", "--cached", "--no-color", "--no-ext-diff", start.head ?? EMPTY_TREE], { env })
  })
  if (diff === undefined) throw new Error("the project is no longer in a git repository")
  return diff
}
