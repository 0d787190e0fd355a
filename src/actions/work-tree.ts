// The project's git work tree: a fingerprint of HEAD and every changed or untracked file with its
// size and modification time (it changes when the agent edits, creates, deletes or commits files),
// the snapshot a loop takes when it begins, and the files it changed since. The loop's own files
// (`ownFolders`) are left out, or every restart would look like progress.
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { join } from "node:path"
import { changedSinceStart, DELETED, type FileHashes, type StartTree } from "../loop/changed-files.js"

const MAX_FILES = 2_000

function git(directory: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd: directory, timeout: 5_000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    )
  })
}

/**
 * Files changed in the project (status code and path relative to the project), outside the ignored
 * prefixes. Git reports paths from the repository root, which may be above the project.
 */
export async function changedFiles(directory: string, ignore: readonly string[]): Promise<Array<{ code: string; path: string }>> {
  const [prefix, status] = await Promise.all([
    git(directory, ["rev-parse", "--show-prefix"]),
    git(directory, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", "."]),
  ])
  const base = (prefix ?? "").trim()
  const files: Array<{ code: string; path: string }> = []
  const entries = (status ?? "").split("\0")
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

export function headCommit(directory: string): Promise<string | undefined> {
  return git(directory, ["rev-parse", "--verify", "-q", "HEAD"]).then((out) => out?.trim() || undefined)
}

/** A file's content hash; DELETED when it is not there. */
function hashFile(file: string): Promise<string> {
  return new Promise((resolve) => {
    const hash = createHash("sha1")
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ENOENT" ? DELETED : `unreadable:${error.code ?? "?"}`))
  })
}

async function hashAll(directory: string, paths: Iterable<string>): Promise<FileHashes> {
  const hashes: FileHashes = {}
  for (const path of paths) hashes[path] = await hashFile(join(directory, path))
  return hashes
}

/** HEAD and the content of every changed or untracked file when a loop begins (undefined: not a git repository). */
export async function snapshotWorkTree(directory: string, ignore: readonly string[]): Promise<StartTree | undefined> {
  if ((await repositoryPrefix(directory)) === undefined) return undefined
  const [head, files] = await Promise.all([headCommit(directory), changedFiles(directory, ignore)])
  const hashes = await hashAll(directory, files.slice(0, MAX_FILES).map((f) => f.path))
  return head ? { head, files: hashes } : { files: hashes }
}

/**
 * The files the loop changed since it began (see src/loop/changed-files.ts), with their status code
 * now — or, for one that no longer differs from HEAD, "committed", "deleted" or "reverted" —
 * outside the ignored prefixes.
 */
export async function filesChangedSinceStart(
  directory: string,
  start: { head?: string | undefined; files?: FileHashes | undefined },
  ignore: readonly string[],
): Promise<Array<{ code: string; path: string }>> {
  const [diff, dirty] = await Promise.all([
    start.head ? git(directory, ["diff", "--name-only", "--relative", `${start.head}..HEAD`, "--", "."]) : undefined,
    changedFiles(directory, ignore),
  ])
  const committed = (diff ?? "").split("\n").filter((path) => path && !ignore.some((prefix) => path.startsWith(prefix)))
  const now = await hashAll(directory, new Set([...dirty.map((f) => f.path), ...Object.keys(start.files ?? {})]))
  const codes = new Map(dirty.map((f) => [f.path, f.code]))
  const clean = (path: string) => (committed.includes(path) ? "committed" : now[path] === DELETED ? "deleted" : "reverted")
  return changedSinceStart(start.files, committed, now).map((path) => ({ code: codes.get(path) ?? clean(path), path }))
}

/**
 * One git call for the progress sample: `status --porcelain=v2 --branch` carries HEAD and the
 * changed files. `prefix` is the project's place in the repository (`git rev-parse --show-prefix`),
 * asked once per instance.
 */
export async function sampleWorkTree(directory: string, prefix: string, ignore: readonly string[], targets: readonly string[] = []): Promise<string | undefined> {
  // Targets (`@path` in the task) narrow the sample to them; git takes them as pathspecs.
  const status = await git(directory, ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--", ...(targets.length ? targets : ["."])])
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
    .slice(0, MAX_FILES)
  for (const { code, path } of mine) {
    const info = await stat(join(directory, path)).catch(() => undefined)
    hash.update(`\n${code} ${path} ${info?.size ?? -1} ${info?.mtimeMs ?? -1}`)
  }
  return hash.digest("hex")
}

export async function repositoryPrefix(directory: string): Promise<string | undefined> {
  return (await git(directory, ["rev-parse", "--show-prefix"]))?.trim()
}
