// A fingerprint of the project's git work tree: HEAD, and every changed or untracked file with its
// size and modification time. It changes when the agent edits, creates, deletes or commits files.
// The loop's own files (under .opencode/) are left out, or every restart would look like progress.
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

/** Files changed in the work tree (status code and path), outside the ignored prefixes. */
export async function changedFiles(directory: string, ignore: readonly string[] = [".opencode/"]): Promise<Array<{ code: string; path: string }>> {
  const status = await git(directory, ["status", "--porcelain=v1", "-z", "--untracked-files=all"])
  return (status ?? "")
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => ({ code: entry.slice(0, 2), path: entry.slice(3) }))
    .filter(({ path }) => !ignore.some((prefix) => path.startsWith(prefix)))
}

export async function workTreeFingerprint(directory: string, ignore: readonly string[] = [".opencode/"]): Promise<string | undefined> {
  const [head, status] = await Promise.all([
    git(directory, ["rev-parse", "--verify", "-q", "HEAD"]),
    git(directory, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]),
  ])
  if (status === undefined) return undefined
  const paths = status
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => ({ code: entry.slice(0, 2), path: entry.slice(3) }))
    .filter(({ path }) => !ignore.some((prefix) => path.startsWith(prefix)))
    .slice(0, MAX_FILES)
  const hash = createHash("sha1").update(head ?? "no-head")
  for (const { code, path } of paths) {
    const info = await stat(join(directory, path)).catch(() => undefined)
    hash.update(`\n${code} ${path} ${info?.size ?? -1} ${info?.mtimeMs ?? -1}`)
  }
  return hash.digest("hex")
}

export function headCommit(directory: string): Promise<string | undefined> {
  return git(directory, ["rev-parse", "--verify", "-q", "HEAD"]).then((out) => out?.trim() || undefined)
}

/** Files changed since `since` (committed or not), outside the ignored prefixes. */
export async function filesChangedSince(directory: string, since: string | undefined, ignore: readonly string[]): Promise<string[]> {
  const committed = since ? ((await git(directory, ["diff", "--name-only", `${since}..HEAD`])) ?? "").split("\n").filter(Boolean) : []
  const pending = (await changedFiles(directory, ignore)).map((f) => f.path)
  return [...new Set([...committed, ...pending])].filter((path) => !ignore.some((prefix) => path.startsWith(prefix)))
}
