// autoCommit with a story of more files than a command line holds: the paths go to git on its stdin
// (`--pathspec-from-file`), so the commit is made whatever their number. `npm test` runs a story whose
// paths together pass the system's limit (getconf ARG_MAX) by half again — a few thousand files with
// long names; `npm run fuzz` runs it with 70,000 files (RALPH_COMMIT_FILES).
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commitLoopWork } from "../../src/changes/auto-commit.js"
import { snapshotWorkTree } from "../../src/changes/work-tree.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  }).trim()

const FILES = Number(process.env.RALPH_COMMIT_FILES ?? 2_000)
const ARG_MAX = Number(execFileSync("getconf", ["ARG_MAX"], { encoding: "utf8" }).trim()) || 2 * 1024 * 1024
/** Long enough that the story's paths, as arguments, would pass ARG_MAX by half again. */
const PATH_LENGTH = Math.max(16, Math.ceil((ARG_MAX * 1.5) / FILES))

/** A folder path of about `length` characters (no name past 200: file systems allow 255). */
function deepFolder(length: number): string {
  const parts: string[] = []
  for (let left = length; left > 0; left -= 201) parts.push("d".repeat(Math.min(200, Math.max(1, left - 1))))
  return parts.join("/")
}

describe("autoCommit of a story with more paths than a command line holds", () => {
  it(`commits all ${FILES} files of the story (half of them tracked), none of the user's`, async () => {
    const dir = tmp("auto-commit-many-")
    git(dir, "init", "-q", "-b", "main")
    git(dir, "config", "user.name", "The User")
    git(dir, "config", "user.email", "user@example.invalid")
    const folder = deepFolder(PATH_LENGTH - 12)
    mkdirSync(join(dir, folder), { recursive: true })
    const name = (i: number) => `${folder}/f${String(i).padStart(6, "0")}.txt`
    const half = Math.floor(FILES / 2)
    for (let i = 0; i < half; i += 1) writeFileSync(join(dir, name(i)), "before\n")
    git(dir, "add", ".")
    git(dir, "commit", "-q", "-m", "start")
    writeFileSync(join(dir, "mine.txt"), "the user's own\n")

    const start = await snapshotWorkTree(dir)
    for (let i = 0; i < FILES; i += 1) writeFileSync(join(dir, name(i)), `the story's ${i}\n`)
    const made = await commitLoopWork(
      dir,
      { startHead: start?.head, startTree: start?.tree },
      [".opencode/"],
      "story S-1: many",
    )

    expect(made).toMatchObject({ files: FILES })
    expect(git(dir, "log", "--format=%s")).toBe("story S-1: many\nstart")
    expect(git(dir, "show", "--name-only", "-z", "--format=", "HEAD").split("\0").filter(Boolean)).toHaveLength(FILES)
    expect(git(dir, "status", "--porcelain", "--untracked-files=all")).toBe("?? mine.txt")
  }, 900_000)
})
