// A temporary index: how the plugin stages a tree of its own (a checkpoint, a story's commit, the
// reviewer's diff, a rollback's checkout) without touching the user's index. One place makes it: a
// random name beside the work tree's own index (a linked worktree has its own), removed when the
// work is done — also when it fails.
import { randomBytes } from "node:crypto"
import { copyFile, rm, stat, utimes } from "node:fs/promises"
import { dirname, isAbsolute, join } from "node:path"
import { gitText } from "./run.js"

/** The environment that points git at the temporary index. */
export interface TempIndexEnv {
  GIT_INDEX_FILE: string
  [name: string]: string
}

export interface TempIndexOptions {
  /** "empty" (the default): a new index; "user": a copy of the user's, so unchanged files are not hashed again. */
  from?: "empty" | "user"
}

/** The index file git uses for this work tree; a `GitError` outside a repository. */
async function indexFile(repo: string): Promise<string> {
  const path = (await gitText(repo, ["rev-parse", "--git-path", "index"])).trim()
  return isAbsolute(path) ? path : join(repo, path)
}

/**
 * Runs `work` with git pointed at a temporary index (pass the env to each git call of it). The
 * index file and any lock git left on it are removed afterwards, whether `work` succeeds or throws.
 * Outside a repository: a `GitError` (see `notARepository`).
 */
export async function withTempIndex<T>(
  repo: string,
  work: (env: TempIndexEnv) => Promise<T>,
  options: TempIndexOptions = {},
): Promise<T> {
  const own = await indexFile(repo)
  const index = join(dirname(own), `ralph-index-${process.pid}-${randomBytes(6).toString("hex")}`)
  try {
    if (options.from === "user") await copyIndexFile(own, index)
    return await work({ GIT_INDEX_FILE: index })
  } finally {
    await rm(index, { force: true })
    await rm(`${index}.lock`, { force: true })
  }
}

/**
 * Copies git's index file with its time (to the second below, never later). git trusts an entry's
 * size and time only when the file is older than the index file; a copy with a fresh time would
 * pass a file rewritten, at the same size, in the second the index was last written — its old
 * content would be taken for the new. False when there is no index to copy.
 */
async function copyIndexFile(from: string, to: string): Promise<boolean> {
  try {
    const { atime, mtimeMs } = await stat(from)
    await copyFile(from, to)
    await utimes(to, atime, Math.floor(mtimeMs / 1000))
    return true
  } catch {
    // No index yet (a repository without a commit or an add): the temporary one starts empty.
    return false
  }
}
