// The project's git work tree: a fingerprint of HEAD and every changed or untracked file with its
// size and modification time (it changes when the agent edits, creates, deletes or commits files),
// and the files changed. The loop's own files (`ownFolders`) are left out, or every restart would
// look like progress.
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { stat } from "node:fs/promises"
import { join } from "node:path"

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
  return (status ?? "")
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => ({ code: entry.slice(0, 2), path: entry.slice(3) }))
    .filter(({ path }) => path.startsWith(base))
    .map(({ code, path }) => ({ code, path: path.slice(base.length) }))
    .filter(({ path }) => !ignore.some((p) => path.startsWith(p)))
}

export function headCommit(directory: string): Promise<string | undefined> {
  return git(directory, ["rev-parse", "--verify", "-q", "HEAD"]).then((out) => out?.trim() || undefined)
}

/** Files changed since `since` (committed or not), outside the ignored prefixes. */
export async function filesChangedSince(directory: string, since: string | undefined, ignore: readonly string[]): Promise<string[]> {
  const committed = since ? ((await git(directory, ["diff", "--name-only", "--relative", `${since}..HEAD`, "--", "."])) ?? "").split("\n").filter(Boolean) : []
  const pending = (await changedFiles(directory, ignore)).map((f) => f.path)
  return [...new Set([...committed, ...pending])].filter((path) => !ignore.some((prefix) => path.startsWith(prefix)))
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
