// The project's git work tree: a fingerprint of HEAD and every changed or untracked file with its
// size and modification time (it changes when the agent edits, creates, deletes or commits files),
// the snapshot a loop takes when it begins, and the files it changed since. The loop's own files
// (`ownFolders`) are left out, or every restart would look like progress. A git failure is never
// read as "no files": the calls that must know throw, the sample answers undefined (unknown).
import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { join } from "node:path"
import { changedSinceStart, DELETED, type FileHashes, type StartTree } from "../loop/changed-files.js"
import { git, gitText } from "../git/run.js"
import { workTreeSnapshot } from "../checkpoints/checkpoint-git.js"

/** The progress sample hashes the size and time of this many changed files at most (it runs on every turn's end). */
const MAX_SAMPLED_FILES = 2_000

/** The sample's git: undefined when it failed (the sample is then unknown, not "no change"). */
async function sampleGit(directory: string, args: string[]): Promise<string | undefined> {
  const result = await git(directory, args, { timeout: "sample" })
  return result.ok ? result.stdout : undefined
}

/**
 * Files changed in the project (status code and path relative to the project), outside the ignored
 * prefixes. Git reports paths from the repository root, which may be above the project.
 */
export async function changedFiles(
  directory: string,
  ignore: readonly string[],
): Promise<Array<{ code: string; path: string }>> {
  const [prefix, status] = await Promise.all([
    gitText(directory, ["rev-parse", "--show-prefix"]),
    // --no-renames: a rename staged (`git mv`) is its two files, the old one's deletion included.
    gitText(directory, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."]),
  ])
  const base = prefix.trim()
  const files: Array<{ code: string; path: string }> = []
  const entries = status.split("\0")
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i] as string
    if (entry.length <= 3) continue
    const code = entry.slice(0, 2)
    files.push({ code, path: entry.slice(3) })
    // A rename or copy is followed by its original path.
    if (code[0] === "R" || code[0] === "C") i += 1
  }
  return files
    .filter(({ path }) => path.startsWith(base))
    .map(({ code, path }) => ({ code, path: path.slice(base.length) }))
    .filter(({ path }) => !ignore.some((p) => path.startsWith(p)))
}

/** HEAD's commit; undefined in a repository without one. */
export async function headCommit(directory: string): Promise<string | undefined> {
  const result = await git(directory, ["rev-parse", "--verify", "-q", "HEAD"], { answers: [1] })
  if (!result.ok) throw new Error(`git rev-parse HEAD: ${result.reason}`)
  return result.stdout.trim() || undefined
}

/** A file's content hash; DELETED when it is not there. */
function hashFile(file: string): Promise<string> {
  return new Promise((resolve) => {
    const hash = createHash("sha1")
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", (error: NodeJS.ErrnoException) =>
        resolve(error.code === "ENOENT" ? DELETED : `unreadable:${error.code ?? "?"}`),
      )
  })
}

async function hashAll(directory: string, paths: Iterable<string>): Promise<FileHashes> {
  const hashes: FileHashes = {}
  for (const path of paths) hashes[path] = await hashFile(join(directory, path))
  return hashes
}

/**
 * HEAD and the whole work tree (as a git tree, `.opencode/` aside) when a loop begins: undefined
 * when the project is not in a git repository; a git failure throws (the start is then unknown).
 */
export async function snapshotWorkTree(directory: string): Promise<StartTree | undefined> {
  if ((await repositoryPrefix(directory)) === undefined) return undefined
  const [head, tree] = await Promise.all([headCommit(directory), workTreeSnapshot(directory)])
  if (tree === undefined) return undefined
  return head ? { head, tree } : { tree }
}

/**
 * The files the loop changed since it began (see src/loop/changed-files.ts), with their status code
 * now — or, for one that no longer differs from HEAD, "committed", "deleted" or "reverted" —
 * outside the ignored prefixes.
 */
export async function filesChangedSinceStart(
  directory: string,
  start: { head?: string | undefined; tree?: string | undefined; files?: FileHashes | undefined },
  ignore: readonly string[],
): Promise<Array<{ code: string; path: string }>> {
  const [committed, dirty] = await Promise.all([
    committedSince(directory, start.head, ignore),
    changedFiles(directory, ignore),
  ])
  const changed =
    start.tree !== undefined
      ? await changedSinceTree(directory, start.tree, ignore)
      : await changedSinceHashes(directory, start.files, committed, dirty)
  const codes = new Map(dirty.map((f) => [f.path, f.code]))
  const gone = new Set(changed.filter((c) => c.deleted).map((c) => c.path))
  const clean = (path: string) => (committed.includes(path) ? "committed" : gone.has(path) ? "deleted" : "reverted")
  return changed.map(({ path }) => ({ code: codes.get(path) ?? clean(path), path }))
}

async function committedSince(
  directory: string,
  head: string | undefined,
  ignore: readonly string[],
): Promise<string[]> {
  if (!head) return []
  const diff = await gitText(directory, [
    "diff",
    "--name-only",
    "--no-renames",
    "-z",
    "--relative",
    `${head}..HEAD`,
    "--",
    ".",
  ])
  return diff.split("\0").filter((path) => path && !ignore.some((prefix) => path.startsWith(prefix)))
}

/** Every file whose content differs from the tree the loop began with (found by git, however many files). */
async function changedSinceTree(
  directory: string,
  start: string,
  ignore: readonly string[],
): Promise<Array<{ path: string; deleted: boolean }>> {
  const now = await workTreeSnapshot(directory)
  if (now === undefined) throw new Error("the project is no longer in a git repository")
  const fields = (
    await gitText(directory, ["diff", "--name-status", "--no-renames", "-z", "--relative", start, now, "--", "."])
  ).split("\0")
  const changed: Array<{ path: string; deleted: boolean }> = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const path = fields[i + 1] as string
    if (!ignore.some((prefix) => path.startsWith(prefix))) changed.push({ path, deleted: fields[i] === "D" })
  }
  return changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** A loop saved by an older version kept content hashes of the files dirty at its start. */
async function changedSinceHashes(
  directory: string,
  startFiles: FileHashes | undefined,
  committed: string[],
  dirty: Array<{ path: string }>,
): Promise<Array<{ path: string; deleted: boolean }>> {
  const now = await hashAll(directory, new Set([...dirty.map((f) => f.path), ...Object.keys(startFiles ?? {})]))
  return changedSinceStart(startFiles, committed, now).map((path) => ({ path, deleted: now[path] === DELETED }))
}

/**
 * One git call for the progress sample: `status --porcelain=v2 --branch` carries HEAD and the
 * changed files. `prefix` is the project's place in the repository (`git rev-parse --show-prefix`),
 * asked once per instance.
 */
export async function sampleWorkTree(
  directory: string,
  prefix: string,
  ignore: readonly string[],
  targets: readonly string[] = [],
): Promise<string | undefined> {
  // Targets (`@path` in the task) narrow the sample to them; git takes them as pathspecs.
  const status = await sampleGit(directory, [
    "status",
    "--porcelain=v2",
    "--branch",
    "-z",
    "--untracked-files=all",
    "--",
    ...(targets.length ? targets : ["."]),
  ])
  if (status === undefined) return undefined
  const hash = createHash("sha1")
  const files: Array<{ code: string; path: string }> = []
  const entries = status.split("\0")
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i] as string
    if (entry.startsWith("# branch.oid ")) hash.update(entry)
    else if (entry.startsWith("? ")) files.push({ code: "??", path: entry.slice(2) })
    else if (entry.startsWith("1 ")) files.push({ code: entry.slice(2, 4), path: entry.split(" ").slice(8).join(" ") })
    else if (entry.startsWith("u ")) files.push({ code: entry.slice(2, 4), path: entry.split(" ").slice(10).join(" ") })
    else if (entry.startsWith("2 ")) {
      files.push({ code: entry.slice(2, 4), path: entry.split(" ").slice(9).join(" ") })
      i += 1 // the original path of a rename follows
    }
  }
  const mine = files
    .filter(({ path }) => path.startsWith(prefix))
    .map(({ code, path }) => ({ code, path: path.slice(prefix.length) }))
    .filter(({ path }) => !ignore.some((p) => path.startsWith(p)))
    .slice(0, MAX_SAMPLED_FILES)
  for (const { code, path } of mine) {
    const info = await stat(join(directory, path)).catch(() => undefined)
    hash.update(`\n${code} ${path} ${info?.size ?? -1} ${info?.mtimeMs ?? -1}`)
  }
  return hash.digest("hex")
}

/** The project's place in its repository; undefined when it is not in one (or git cannot say). */
export async function repositoryPrefix(directory: string): Promise<string | undefined> {
  return (await sampleGit(directory, ["rev-parse", "--show-prefix"]))?.trim()
}
