// autoCommit: after the plugin verified a plan story done, the loop's changes are committed on the
// user's branch as `story <id>: <title>` — only the files the loop changed (not the user's own
// uncommitted work from before it), with the repository's hooks (never --no-verify), and never on
// a detached HEAD or while the index holds a conflict. The commit is made from an index of its own,
// so one that fails (a hook says no, no identity) leaves the user's index exactly as it was.
import { lstat, rm } from "node:fs/promises"
import { isAbsolute, join } from "node:path"
import { git, gitText } from "../git/run.js"
import { loopStart, startUnknown, type FileHashes } from "../loop/changed-files.js"
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
export async function commitLoopWork(
  directory: string,
  loop: LoopWork,
  ignore: readonly string[],
  message: string,
): Promise<StoryCommit> {
  const paths = await loopWorkPaths(directory, loop, ignore)
  return "skipped" in paths ? paths : commitStory(directory, paths.paths, message)
}

/**
 * The loop's work: the paths it changed since it began and not committed since (`ignore`: its own
 * folders), never a file of the user's — or why that cannot be told.
 */
export async function loopWorkPaths(
  directory: string,
  loop: LoopWork,
  ignore: readonly string[],
): Promise<{ paths: string[] } | { skipped: string }> {
  const unknown = startUnknown(loop)
  if (unknown) return { skipped: unknown }
  const files = await filesChangedSinceStart(directory, loopStart(loop), ignore)
  // Committed or reverted meanwhile, or a file of no commit's that is gone: nothing of it to commit.
  const changed = files
    .filter((f) => f.code !== "committed" && f.code !== "reverted" && f.code !== "deleted")
    .map((f) => f.path)
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

/** NUL-terminated lines, as git reads them on its stdin (`-z`). */
const nulTerminated = (lines: readonly string[]): string => lines.map((line) => `${line}\0`).join("")

/**
 * Commits `paths` (relative to `directory`) as a story. The commit is made from an index of its own
 * — HEAD and the story's files, nothing of the user's index — so a commit that fails (a hook says no,
 * no identity) leaves the user's index untouched; once it is made, the user's index takes the
 * committed files as committed, the rest of it as it was. Paths go to git on its stdin, never as
 * arguments and never as pathspecs: a story of tens of thousands of files would pass the system's
 * limit on a command line (E2BIG), and git matches pathspecs in time that grows with their number
 * times the files' — neither holds for `update-index --stdin`.
 */
export async function commitStory(directory: string, paths: readonly string[], message: string): Promise<StoryCommit> {
  const branch = await git(directory, ["symbolic-ref", "-q", "--short", "HEAD"])
  if (!branch.ok || !branch.stdout.trim()) return { skipped: "HEAD is detached (or this is not a git repository)" }
  if ((await gitText(directory, ["ls-files", "-u"])).trim())
    return { skipped: "the index holds a conflict (unmerged files)" }
  if (paths.length === 0) return { skipped: "the story changed no files" }
  const storyIndex = `${await indexFile(directory)}.ralph-story-${process.pid}`
  const env = { GIT_INDEX_FILE: storyIndex }
  try {
    const born = (await git(directory, ["rev-parse", "--verify", "-q", "HEAD"])).ok
    await gitText(directory, born ? ["read-tree", "HEAD"] : ["read-tree", "--empty"], { env })
    // A path neither in HEAD nor on disk (made and removed again, or removed with `git rm`) has nothing to stage.
    const inHead = new Set((await gitText(directory, ["ls-files", "-z"], { env })).split("\0"))
    const present: string[] = []
    for (const path of paths)
      if (
        inHead.has(path) ||
        (await lstat(join(directory, path)).then(
          () => true,
          () => false,
        ))
      )
        present.push(path)
    await gitText(directory, ["update-index", "--add", "--remove", "-z", "--stdin"], {
      env,
      input: nulTerminated(present),
    })
    const changed = (
      await gitText(directory, ["diff", "--cached", "--name-only", "--no-renames", "-z", "--relative"], { env })
    )
      .split("\0")
      .filter(Boolean)
    if (changed.length === 0) return { skipped: "the story changed no files" }
    await gitText(directory, ["commit", "-q", "-m", message], { env })
    await takeCommitted(directory, env, changed)
    return {
      committed: `${branch.stdout.trim()} ${(await gitText(directory, ["rev-parse", "--short", "HEAD"])).trim()}`,
      files: changed.length,
    }
  } finally {
    await rm(storyIndex, { force: true })
  }
}

/**
 * The user's index takes the committed `files` (relative to `directory`) as the story's index holds
 * them, a file the story removed leaves it; its other entries stay as they were.
 */
async function takeCommitted(directory: string, env: Record<string, string>, files: readonly string[]): Promise<void> {
  const prefix = (await gitText(directory, ["rev-parse", "--show-prefix"])).trim()
  const wanted = new Set(files)
  const lines: string[] = []
  // `ls-files -s`: "<mode> <object> <stage>\t<path>", relative to `directory`; `--index-info` reads paths from the top.
  for (const entry of (await gitText(directory, ["ls-files", "-s", "-z"], { env })).split("\0")) {
    const tab = entry.indexOf("\t")
    const path = entry.slice(tab + 1)
    if (tab < 0 || !wanted.delete(path)) continue
    lines.push(`${entry.slice(0, tab)}\t${prefix}${path}`)
  }
  await gitText(directory, ["update-index", "-z", "--index-info"], { input: nulTerminated(lines) })
  // What is left the story removed (`--stdin` reads paths from `directory`, as they are here).
  if (wanted.size > 0)
    await gitText(directory, ["update-index", "--force-remove", "-z", "--stdin"], { input: nulTerminated([...wanted]) })
}

/** The index file git uses for this work tree (a linked worktree has its own). */
async function indexFile(directory: string): Promise<string> {
  const path = (await gitText(directory, ["rev-parse", "--git-path", "index"])).trim()
  return isAbsolute(path) ? path : join(directory, path)
}
