// The git on PATH, and whether it can do what a merge needs: `git merge-tree --write-tree` finds a
// merge's conflicts without touching the work tree, and came with git 2.38 (Ubuntu 22.04 ships
// 2.34). `ralph-loop plan merge` and the worktree strategy `merge` use it; doctor says what is found.
import { git } from "./run.js"

/** The first git with `merge-tree --write-tree`. */
const MERGE_TREE_GIT = { major: 2, minor: 38 } as const
const NEEDED = `${MERGE_TREE_GIT.major}.${MERGE_TREE_GIT.minor}`
const MERGE_TREE = "`git merge-tree --write-tree`"

export interface GitVersion {
  major: number
  minor: number
  /** As git says it ("2.39.3 (Apple Git-146)", "2.41.0.windows.1"). */
  text: string
}

/** `git --version`'s answer as numbers; undefined when it is no version git gives. Pure. */
export function parseGitVersion(output: string): GitVersion | undefined {
  const text = output.trim()
  if (!text.startsWith("git version ")) return undefined
  const version = text.slice("git version ".length)
  const [major, minor] = version.split(".").map((part) => Number(part))
  if (!Number.isInteger(major) || !Number.isInteger(minor)) return undefined
  return { major: major as number, minor: minor as number, text: version }
}

/** Whether that git has `merge-tree --write-tree`. Pure. */
export const hasMergeTree = ({ major, minor }: GitVersion): boolean =>
  major > MERGE_TREE_GIT.major || (major === MERGE_TREE_GIT.major && minor >= MERGE_TREE_GIT.minor)

/** Why that git cannot merge a loop's branch, or undefined when it can. Pure. */
export const tooOldToMerge = (version: GitVersion): string | undefined =>
  hasMergeTree(version)
    ? undefined
    : `git ${version.text} is too old to merge a loop's branch: ${MERGE_TREE} needs git ${NEEDED} or later (update git)`

/** The git on PATH's version, or why there is none to tell. */
export async function gitVersion(directory: string): Promise<{ version: GitVersion } | { problem: string }> {
  const result = await git(directory, ["--version"])
  if (!result.ok) return { problem: result.reason }
  const version = parseGitVersion(result.stdout)
  if (version) return { version }
  return { problem: `\`git --version\` answered ${JSON.stringify(result.stdout.trim().slice(0, 80))}` }
}

/** git is too old for `merge-tree --write-tree` (or could not say its version). */
export class GitVersionError extends Error {}

/** Before the first `merge-tree --write-tree`: a GitVersionError naming the version found and the one needed. */
export async function requireMergeTree(directory: string): Promise<void> {
  const found = await gitVersion(directory)
  if ("problem" in found) {
    const needs = `merging a loop's branch needs git ${NEEDED} or later`
    throw new GitVersionError(`git's version could not be told (${found.problem}); ${needs}`)
  }
  const problem = tooOldToMerge(found.version)
  if (problem) throw new GitVersionError(problem)
}
