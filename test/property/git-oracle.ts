// What the git-layer property test reads back from a real repository, independently of the code
// under test: the files on disk, a tree or the index as path → blob id, the refs. It also runs the
// user's and the agent's own git commands. File names are literal here (GIT_LITERAL_PATHSPECS).
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/** Path (repository-relative) → content. */
export type Files = Map<string, string>
/** Path → blob id. */
export type Blobs = Map<string, string>

/** The blob id git gives this content. */
export const blob = (content: string): string =>
  createHash("sha1")
    .update(`blob ${Buffer.byteLength(content)}\0`)
    .update(content)
    .digest("hex")

export const blobsOf = (files: Files): Blobs => new Map([...files].map(([path, content]) => [path, blob(content)]))

export function sh(cwd: string, args: readonly string[], env: Record<string, string> = {}): string {
  return execFileSync("git", ["-c", "core.quotepath=off", ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, GIT_LITERAL_PATHSPECS: "1", ...env },
  })
}

/** Every file under `root` (content by relative path); `skip` leaves a file or folder out. */
export function readDisk(root: string, skip: (path: string) => boolean): Files {
  const files: Files = new Map()
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = rel + entry.name
      if (skip(path)) continue
      if (entry.isDirectory()) walk(join(dir, entry.name), `${path}/`)
      else files.set(path, readFileSync(join(dir, entry.name), "utf8"))
    }
  }
  walk(root, "")
  return files
}

/** A commit's or tree's files, path → blob id. */
export function treeBlobs(cwd: string, rev: string): Blobs {
  const blobs: Blobs = new Map()
  for (const entry of sh(cwd, ["ls-tree", "-r", "-z", "--full-tree", rev]).split("\0")) {
    if (!entry) continue
    const tab = entry.indexOf("\t")
    blobs.set(entry.slice(tab + 1), entry.slice(0, tab).split(" ")[2] as string)
  }
  return blobs
}

/** The index's entries, path → blob id; an entry of a conflict (stage ≠ 0) is named as such. */
export function indexBlobs(cwd: string): Blobs {
  const blobs: Blobs = new Map()
  for (const entry of sh(cwd, ["ls-files", "-s", "-z"]).split("\0")) {
    if (!entry) continue
    const tab = entry.indexOf("\t")
    const [, id = "", stage = ""] = entry.slice(0, tab).split(" ")
    blobs.set(entry.slice(tab + 1), stage === "0" ? id : `conflict stage ${stage}`)
  }
  return blobs
}

/** Every ref of the repository, name → object id. */
export function refs(cwd: string): Map<string, string> {
  const out = sh(cwd, ["for-each-ref", "--format=%(objectname) %(refname)"])
  return new Map(
    out
      .split("\n")
      .filter(Boolean)
      .map((line) => [line.slice(41), line.slice(0, 40)]),
  )
}

export const revParse = (cwd: string, rev: string): string => sh(cwd, ["rev-parse", "--verify", "-q", rev]).trim()

/** The differences between what the model expects and what is there, one line each (at most `max`). */
export function differences(
  what: string,
  expected: Map<string, string>,
  actual: Map<string, string>,
  show = (v: string) => JSON.stringify(v),
  max = 12,
): string[] {
  const lines: string[] = []
  for (const key of new Set([...expected.keys(), ...actual.keys()])) {
    const want = expected.get(key)
    const got = actual.get(key)
    if (want === got) continue
    lines.push(
      `${what} ${JSON.stringify(key)}: expected ${want === undefined ? "absent" : show(want)}, found ${got === undefined ? "absent" : show(got)}`,
    )
  }
  lines.sort()
  return lines.length > max ? [...lines.slice(0, max), `… ${lines.length - max} more`] : lines
}
