// autoCommit: after the plugin verified a plan story done, the loop's changes are committed on the
// user's branch as `story <id>: <title>` — only the files the loop changed (not the user's own
// uncommitted work from before it), with the repository's hooks (never --no-verify), and never on
// a detached HEAD or while the index holds a conflict. A commit that fails (a hook says no, no
// identity) leaves the user's index exactly as it was: it is copied before and put back after.
import { lstat, rename, rm } from "node:fs/promises"
import { isAbsolute, join } from "node:path"
import { git, gitText, literal } from "../git/run.js"
import { loopStart, startUnknown, type FileHashes } from "../loop/changed-files.js"
import { copyIndexFile } from "./checkpoints.js"
import { filesChangedSinceStart } from "./work-tree.js"

export type StoryCommit = { committed: string; files: number } | { skipped: string }

interface LoopWork {
  /** When the loop began (ms). */
  startedAt?: number | undefined
  startHead?: string | undefined
  startTree?: string | undefined
  startFiles?: FileHashes | undefined
  startUnknown?: string | undefined
}

/** Commits what the loop changed since it began (`ignore`: its own folders), never a file of the user's. */
export async function commitLoopWork(directory: string, loop: LoopWork, ignore: readonly string[], message: string): Promise<StoryCommit> {
  const paths = await loopWorkPaths(directory, loop, ignore)
  return "skipped" in paths ? paths : commitStory(directory, paths.paths, message)
}

/**
 * The loop's work: the paths it changed since it began and not committed since (`ignore`: its own
 * folders), never a file of the user's — or why that cannot be told.
 */
export async function loopWorkPaths(directory: string, loop: LoopWork, ignore: readonly string[]): Promise<{ paths: string[] } | { skipped: string }> {
  const unknown = startUnknown(loop)
  if (unknown) return { skipped: unknown }
  const files = await filesChangedSinceStart(directory, loopStart(loop), ignore)
  // Committed or reverted meanwhile, or a file of no commit's that is gone: nothing of it to commit.
  const changed = files.filter((f) => f.code !== "committed" && f.code !== "reverted" && f.code !== "deleted").map((f) => f.path)
  return { paths: loop.startedAt === undefined ? changed : await writtenSince(directory, changed, loop.startedAt) }
}

/**
 * The paths written (or removed) since `since`. A file not written since — its change time, which
 * nothing can set back, is older — differs from the loop's start only because git ignored it then
 * (a user's `.env` that an edit of `.gitignore` made visible): it is no work of the loop's.
 */
async function writtenSince(directory: string, paths: readonly string[], since: number): Promise<string[]> {
  const written: string[] = []
  for (const path of paths) {
    const info = await lstat(join(directory, path)).catch(() => undefined)
    if (!info || info.ctimeMs >= since) written.push(path)
  }
  return written
}

export async function commitStory(directory: string, paths: readonly string[], message: string): Promise<StoryCommit> {
  const branch = await git(directory, ["symbolic-ref", "-q", "--short", "HEAD"])
  if (!branch.ok || !branch.stdout.trim()) return { skipped: "HEAD is detached (or this is not a git repository)" }
  if ((await gitText(directory, ["ls-files", "-u"])).trim()) return { skipped: "the index holds a conflict (unmerged files)" }
  if (paths.length === 0) return { skipped: "the story changed no files" }
  const index = await indexFile(directory)
  const saved = `${index}.ralph-${process.pid}`
  const hadIndex = await copyIndexFile(index, saved)
  const putBack = async () => (hadIndex ? rename(saved, index) : rm(index, { force: true }))
  let changed: string[]
  try {
    const { tracked, untracked } = await toAdd(directory, paths)
    // -u for tracked files: `git add -A` refuses one in a folder git ignores ("Use -f").
    if (tracked.length) await gitText(directory, ["add", "-u", "--", ...literal(tracked)])
    if (untracked.length) await gitText(directory, ["add", "-A", "--", ...literal(untracked)])
    // Only what differs from HEAD now: a file added to the index and gone again has nothing to
    // commit, and `git commit -- path` fails on a path git knows nowhere.
    changed = (await gitText(directory, ["diff", "--cached", "--name-only", "--no-renames", "-z", "--relative", "--", ...literal(paths)])).split("\0").filter(Boolean)
    if (changed.length > 0) await gitText(directory, ["commit", "-q", "-m", message, "--", ...literal(changed)])
    else await putBack()
  } catch (error) {
    await putBack()
    throw error
  } finally {
    await rm(saved, { force: true })
  }
  if (changed.length === 0) return { skipped: "the story changed no files" }
  return { committed: `${branch.stdout.trim()} ${(await gitText(directory, ["rev-parse", "--short", "HEAD"])).trim()}`, files: changed.length }
}

/**
 * The paths to stage: in the index (tracked), or only on disk (untracked). A file removed with
 * `git rm` is neither (its deletion is staged already, and `git commit -- path` takes it from HEAD);
 * given to `git add`, it would fail the whole add.
 */
async function toAdd(directory: string, paths: readonly string[]): Promise<{ tracked: string[]; untracked: string[] }> {
  const indexed = new Set((await gitText(directory, ["ls-files", "-z", "--", ...literal(paths)])).split("\0"))
  const tracked: string[] = []
  const untracked: string[] = []
  for (const path of paths) {
    if (indexed.has(path)) tracked.push(path)
    else if (await lstat(join(directory, path)).then(() => true, () => false)) untracked.push(path)
  }
  return { tracked, untracked }
}

/** The index file git uses for this work tree (a linked worktree has its own). */
async function indexFile(directory: string): Promise<string> {
  const path = (await gitText(directory, ["rev-parse", "--git-path", "index"])).trim()
  return isAbsolute(path) ? path : join(directory, path)
}
