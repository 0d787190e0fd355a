// Lists of files go to git on its stdin, never as arguments: the names of 12,000 changed files with
// long-ish paths pass the system's limit on a command line (ARG_MAX, 2 MB on Linux), and git then
// fails with E2BIG. The reviewer's diff and a merge of a story branch each meet such a list, on
// real repositories here.
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { diffSinceStart } from "../../src/changes/loop-diff.js"
import { mergeStoryBranch } from "../../src/worktrees/plan-merge-git.js"
import { snapshotWorkTree } from "../../src/changes/work-tree.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 256 * 1024 * 1024,
  })

/** 12,000 files of ~190 characters' path each: their names alone are 2.3 MB, past ARG_MAX. */
const MANY = 12_000
const FOLDER = `packages/a-package-with-a-rather-descriptive-name/src/components/${"generated-by-the-loop-".repeat(2)}`
const fileName = (i: number) =>
  `${FOLDER}/component-${String(i).padStart(5, "0")}-with-a-long-descriptive-name-as-real-projects-have.ts`

function repo(): string {
  const dir = tmp("git-long-")
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.name", "The User")
  git(dir, "config", "user.email", "user@example.invalid")
  return dir
}

/** Writes the many files with `content(i)`. */
function writeMany(dir: string, content: (i: number) => string) {
  mkdirSync(join(dir, FOLDER), { recursive: true })
  for (let i = 0; i < MANY; i += 1) writeFileSync(join(dir, fileName(i)), content(i))
}

function commitAll(dir: string, message: string) {
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", message)
}

describe("12,000 changed files with long names", () => {
  it("the reviewer's diff holds every one of them", async () => {
    const dir = repo()
    writeFileSync(join(dir, "app.ts"), "app\n")
    commitAll(dir, "start")
    const start = await snapshotWorkTree(dir)
    writeMany(dir, (i) => `export const n = ${i}\n`)
    git(dir, "add", "-A") // the agent staged them: git tracks them now
    writeFileSync(join(dir, "app.ts"), "app, changed\n")

    const diff = await diffSinceStart(dir, { head: start?.head, tree: start?.tree }, [".opencode/"])

    expect(diff.split("\n").filter((line) => line.startsWith("diff --git ")).length).toBe(MANY + 1)
    expect(diff).toContain(`--- /dev/null\n+++ b/${fileName(11_999)}\n@@ -0,0 +1 @@\n+export const n = 11999\n`)
    expect(diff).toContain("+++ b/app.ts\n@@ -1 +1 @@\n-app\n+app, changed\n")
  }, 120_000)

  it("a story branch that made them all merges (plan merge)", async () => {
    const dir = repo()
    writeFileSync(join(dir, "app.ts"), "app\n")
    commitAll(dir, "start")
    // The branch is made with git's plumbing (one blob for every file): only the merge writes them.
    const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], {
      cwd: dir,
      input: "export const n = 1\n",
      encoding: "utf8",
    }).trim()
    const index = join(dir, ".git", "story-index")
    const env = { ...process.env, GIT_INDEX_FILE: index }
    execFileSync("git", ["read-tree", "HEAD"], { cwd: dir, env })
    const lines = Array.from({ length: MANY }, (_, i) => `100644 ${blob}\t${fileName(i)}\0`).join("")
    execFileSync("git", ["update-index", "-z", "--index-info"], { cwd: dir, env, input: lines })
    const tree = execFileSync("git", ["write-tree"], { cwd: dir, env, encoding: "utf8" }).trim()
    const commit = execFileSync("git", ["commit-tree", tree, "-p", "HEAD", "-m", "the story's work"], {
      cwd: dir,
      encoding: "utf8",
    }).trim()
    git(dir, "update-ref", "refs/heads/ralph/story-big", commit)

    const merged = await mergeStoryBranch(dir, "ralph/story-big", "Merge ralph/story-big")

    expect(merged).toEqual({ merged: true })
    expect(readFileSync(join(dir, fileName(11_999)), "utf8")).toBe("export const n = 1\n")
    expect(git(dir, "status", "--porcelain")).toBe("")
  }, 120_000)
})
