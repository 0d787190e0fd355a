// Checkpoints of the work tree on private refs (`refs/ralph/<loop>/<iteration>`), made with git's
// plumbing and a temporary index: the user's branch, HEAD, index, stash and untracked files are
// never touched. Untracked files git does not ignore are included; the loop's own `.opencode/` is
// not. A rollback writes the files of a checkpoint back into the work tree, and nothing else.
import { randomBytes } from "node:crypto"
import { copyFile, lstat, rm, stat, unlink, utimes } from "node:fs/promises"
import { isAbsolute, join } from "node:path"
import {
  checkpointNumber,
  CheckpointListError,
  checkpointRef,
  checkpointSubject,
  CHECKPOINT_PREFIX,
  iterationOf,
  nextCheckpointNumber,
  type Checkpoint,
  type TreeChange,
} from "./checkpoints.js"
import { OPENCODE_DIR } from "../project/own-files.js"
import { git as runGit, gitText, notARepository } from "../git/run.js"

/** The work tree, without the loop's own files. */
const PATHS = ["--", ".", `:(exclude)${OPENCODE_DIR}`]
/** Private commits need an author whatever the user's git config says. */
const IDENTITY = {
  GIT_AUTHOR_NAME: "ralph-loop",
  GIT_AUTHOR_EMAIL: "ralph-loop@localhost",
  GIT_COMMITTER_NAME: "ralph-loop",
  GIT_COMMITTER_EMAIL: "ralph-loop@localhost",
}

const git = (directory: string, args: string[], env: Record<string, string> = {}): Promise<string> =>
  gitText(directory, args, { env })

/** The repository's git folder, or undefined when the project is not in a git work tree. */
async function gitDir(directory: string): Promise<string | undefined> {
  const result = await runGit(directory, ["rev-parse", "--git-dir"])
  if (notARepository(result)) return undefined
  if (!result.ok) throw new Error(`git rev-parse: ${result.reason}`)
  const dir = result.stdout.trim()
  return isAbsolute(dir) ? dir : join(directory, dir)
}

/**
 * Copies git's index file with its time (to the second below, never later). git trusts an entry's
 * size and time only when the file is older than the index file; a copy with a fresh time would
 * pass a file rewritten, at the same size, in the second the index was last written — its old
 * content would be taken for the new. False when there is no index to copy.
 */
export async function copyIndexFile(from: string, to: string): Promise<boolean> {
  try {
    const { atime, mtimeMs } = await stat(from)
    await copyFile(from, to)
    await utimes(to, atime, Math.floor(mtimeMs / 1000))
    return true
  } catch {
    return false
  }
}

/** Runs `work` with a temporary index, started from the user's (so unchanged files are not hashed again). */
export async function withTemporaryIndex<T>(
  directory: string,
  work: (env: Record<string, string>) => Promise<T>,
): Promise<T | undefined> {
  const dir = await gitDir(directory)
  if (!dir) return undefined
  const index = join(dir, `ralph-index-${process.pid}-${randomBytes(4).toString("hex")}`)
  try {
    await copyIndexFile(join(dir, "index"), index)
    return await work({ GIT_INDEX_FILE: index })
  } finally {
    await rm(index, { force: true })
  }
}

/** The work tree as a tree object (the temporary index is the work tree, `.opencode/` aside). */
async function workTreeTree(directory: string, env: Record<string, string>): Promise<string> {
  await git(directory, ["add", "-A", ...PATHS], env)
  return (await git(directory, ["write-tree"], env)).trim()
}

/** The work tree as a tree object, made without touching the user's index (undefined: not a git work tree). */
export const workTreeSnapshot = (directory: string): Promise<string | undefined> =>
  withTemporaryIndex(directory, (env) => workTreeTree(directory, env))

/**
 * Records the work tree as the checkpoint iteration `iteration` of `loopID` leaves (0: before the
 * loop — the checkpoints of an earlier loop of the same id go then); undefined when the project is
 * not a git repository.
 */
export async function makeCheckpoint(
  directory: string,
  loopID: string,
  iteration: number,
): Promise<Checkpoint | undefined> {
  if (iteration === 0) await removeCheckpoints(directory, loopID)
  return saveWorkTree(
    directory,
    loopID,
    iteration,
    checkpointNumber(await listCheckpoints(directory, loopID), iteration),
  )
}

/** The work tree now, as the next checkpoint (before a rollback writes another one's files). */
export async function saveBeforeRollback(directory: string, loopID: string): Promise<Checkpoint | undefined> {
  return saveWorkTree(directory, loopID, undefined, nextCheckpointNumber(await listCheckpoints(directory, loopID)))
}

async function saveWorkTree(
  directory: string,
  loopID: string,
  iteration: number | undefined,
  number: number,
): Promise<Checkpoint | undefined> {
  return withTemporaryIndex(directory, async (env) => {
    const tree = await workTreeTree(directory, env)
    const head = await git(directory, ["rev-parse", "--verify", "-q", "HEAD"]).then(
      (out) => out.trim(),
      () => "",
    )
    const commit = (
      await git(
        directory,
        ["commit-tree", tree, ...(head ? ["-p", head] : []), "-m", checkpointSubject(loopID, iteration)],
        { ...env, ...IDENTITY },
      )
    ).trim()
    const ref = checkpointRef(loopID, number)
    await git(directory, ["update-ref", ref, commit])
    return { ref, number, iteration, commit, at: Date.now() }
  })
}

/** The checkpoint refs under `prefix` in `format`: none outside a repository; a CheckpointListError when git fails. */
async function checkpointRefs(directory: string, format: string, prefix: string): Promise<string> {
  const result = await runGit(directory, ["for-each-ref", `--format=${format}`, prefix])
  if (result.ok) return result.stdout
  if (notARepository(result)) return ""
  throw new CheckpointListError(`git for-each-ref: ${result.reason}`)
}

/** The ids of the loops that have checkpoints in this repository. */
export async function loopsWithCheckpoints(directory: string): Promise<string[]> {
  const out = await checkpointRefs(directory, "%(refname)", CHECKPOINT_PREFIX)
  return [
    ...new Set(
      out
        .split("\n")
        .filter(Boolean)
        .map((ref) => ref.slice(CHECKPOINT_PREFIX.length, ref.lastIndexOf("/"))),
    ),
  ]
}

/** The loop's checkpoints, oldest first (none outside a git repository); a CheckpointListError when git fails. */
export async function listCheckpoints(directory: string, loopID: string): Promise<Checkpoint[]> {
  const format = "%(refname) %(objectname) %(committerdate:unix) %(subject)"
  const out = await checkpointRefs(directory, format, `${CHECKPOINT_PREFIX}${loopID}/`)
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [ref = "", commit = "", at = "0", ...subject] = line.split(" ")
      return {
        ref,
        commit,
        number: Number(ref.slice(ref.lastIndexOf("/") + 1)),
        iteration: iterationOf(subject.join(" ")),
        at: Number(at) * 1000,
      }
    })
    .filter((c) => Number.isInteger(c.number))
    .sort((a, b) => a.number - b.number)
}

/** What differs between two checkpoints (or a checkpoint and the work tree's tree), inside the project. */
async function changesBetween(directory: string, from: string, to: string): Promise<TreeChange[]> {
  const out = await git(directory, ["diff", "--name-status", "--no-renames", "-z", from, to, ...PATHS])
  const fields = out.split("\0").filter(Boolean)
  const changes: TreeChange[] = []
  for (let i = 0; i + 1 < fields.length; i += 2)
    changes.push({ status: fields[i] as TreeChange["status"], path: fields[i + 1] as string })
  return changes
}

/** Files changed from one commit to the next (for the listing). */
export const changedBetween = (directory: string, from: string, to: string) =>
  changesBetween(directory, from, to).catch(() => [])

/**
 * Writes checkpoint `target`'s files into the work tree: files it has that differ or are missing are
 * written, files it does not have are removed. A file `present` lacks that is there all the same (one
 * git ignores now, so in no checkpoint) stays as it is. Paths are repository-relative in git's
 * answers; the checkout runs from the repository root so that they resolve.
 */
export async function restoreCheckpoint(directory: string, present: string, target: string): Promise<TreeChange[]> {
  const top = (await git(directory, ["rev-parse", "--show-toplevel"])).trim()
  const changes: TreeChange[] = []
  for (const change of await changesBetween(directory, present, target))
    if (change.status !== "A" || !(await isFileThere(join(top, change.path)))) changes.push(change)
  const prefix = (await git(directory, ["rev-parse", "--show-prefix"])).trim()
  await withTemporaryIndex(directory, async (env) => {
    await git(top, ["read-tree", target], env)
    // The paths on git's stdin, never as arguments (however many, and however long).
    const write = changes.filter((c) => c.status !== "D").map((c) => `${c.path}\0`)
    if (write.length > 0) await gitText(top, ["checkout-index", "-f", "-z", "--stdin"], { env, input: write.join("") })
  })
  for (const change of changes.filter((c) => c.status === "D"))
    await unlink(join(top, change.path)).catch(() => undefined)
  // git answers from the repository root; the user reads paths from the project.
  return changes.map((c) => ({
    ...c,
    path: prefix && c.path.startsWith(prefix) ? c.path.slice(prefix.length) : c.path,
  }))
}

const isFileThere = (path: string): Promise<boolean> =>
  lstat(path).then(
    (info) => !info.isDirectory(),
    () => false,
  )

/** Removes every checkpoint of a loop. */
export async function removeCheckpoints(directory: string, loopID: string): Promise<number> {
  const refs = await listCheckpoints(directory, loopID)
  for (const { ref } of refs) await git(directory, ["update-ref", "-d", ref]).catch(() => undefined)
  return refs.length
}
