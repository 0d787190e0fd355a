// The diff of what a loop changed since it began, for its reviewer: the files it changed (as
// filesChangedSinceStart lists them: not the user's own earlier edits, not the plugin's folders),
// against the HEAD it began at, new files included. Kept small and apart, so it can later diff
// against the loop's start checkpoint instead.
import { git, literal } from "../git/run.js"
import { filesChangedSinceStart } from "./work-tree.js"
import type { FileHashes } from "../loop/changed-files.js"

/** git's empty tree: the base when the loop began in a repository without a commit. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

/** A git diff's output; `git diff --no-index` exits 1 when the files differ, which is no failure. */
async function gitDiff(directory: string, args: string[]): Promise<string> {
  const result = await git(directory, ["diff", "--no-color", "--no-ext-diff", ...args], { answers: [1] })
  if (!result.ok) throw new Error(`git diff: ${result.reason}`)
  return result.stdout
}

export async function diffSinceStart(directory: string, start: { head?: string | undefined; tree?: string | undefined; files?: FileHashes | undefined }, ignore: readonly string[]): Promise<string> {
  const files = await filesChangedSinceStart(directory, start, ignore)
  if (files.length === 0) return ""
  const untracked = files.filter((f) => f.code === "??").map((f) => f.path)
  const tracked = files.filter((f) => f.code !== "??").map((f) => f.path)
  const parts = await Promise.all([
    tracked.length ? gitDiff(directory, [start.head ?? EMPTY_TREE, "--", ...literal(tracked)]) : Promise.resolve(""),
    ...untracked.map((path) => gitDiff(directory, ["--no-index", "--", "/dev/null", path])),
  ])
  return parts.filter(Boolean).join("")
}
