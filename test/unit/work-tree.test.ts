import { execFileSync } from "node:child_process"
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  changedFiles,
  filesChangedSinceStart,
  repositoryPrefix,
  sampleWorkTree,
  snapshotWorkTree,
} from "../../src/changes/work-tree.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", ...args], {
    cwd,
    stdio: "ignore",
    env: { ...process.env, HOME: cwd },
  })

function repo(): { root: string; project: string } {
  const root = tempDir("ralph-git-")
  const project = join(root, "packages", "app")
  mkdirSync(project, { recursive: true })
  writeFileSync(join(root, "top.txt"), "top\n")
  writeFileSync(join(project, "a.ts"), "a\n")
  git(root, "init", "-q")
  git(root, "add", "-A")
  git(root, "commit", "-q", "-m", "init")
  return { root, project }
}

describe("work tree", () => {
  it("the fingerprint changes on edits, new files and commits, not on the loop's own files", async () => {
    const { project } = repo()
    const prefix = (await repositoryPrefix(project)) ?? ""
    expect(prefix).toBe("packages/app/")
    const ignore = [".opencode/"]
    const clean = await sampleWorkTree(project, prefix, ignore)
    mkdirSync(join(project, ".opencode/sessions/ses_1"), { recursive: true })
    writeFileSync(join(project, ".opencode/sessions/ses_1/ralph_summary.md"), "s")
    expect(await sampleWorkTree(project, prefix, ignore)).toBe(clean)
    writeFileSync(join(project, "b.ts"), "b\n")
    const added = await sampleWorkTree(project, prefix, ignore)
    expect(added).not.toBe(clean)
    writeFileSync(join(project, "b.ts"), "b changed, longer\n")
    const edited = await sampleWorkTree(project, prefix, ignore)
    expect(edited).not.toBe(added)
    git(project, "add", "b.ts")
    git(project, "commit", "-q", "-m", "b")
    expect(await sampleWorkTree(project, prefix, ignore)).not.toBe(edited)
  })

  it("lists changed files relative to the project, outside the ignored folders", async () => {
    const { root, project } = repo()
    writeFileSync(join(root, "top.txt"), "changed above the project\n")
    writeFileSync(join(project, "a.ts"), "a changed\n")
    mkdirSync(join(project, ".opencode"), { recursive: true })
    writeFileSync(join(project, ".opencode/x"), "x")
    expect(await changedFiles(project, [".opencode/"])).toEqual([{ code: " M", path: "a.ts" }])
  })

  it("is undefined outside a git repository", async () => {
    expect(await repositoryPrefix(tempDir("ralph-nogit-"))).toBeUndefined()
    expect(await snapshotWorkTree(tempDir("ralph-nogit-"))).toBeUndefined()
  })

  it("a rename staged (git mv) is its two files: the old one's deletion is a change too", async () => {
    const { project } = repo()
    git(project, "mv", "a.ts", "renamed.ts")
    expect(await changedFiles(project, [])).toEqual([
      { code: "D ", path: "a.ts" },
      { code: "A ", path: "renamed.ts" },
    ])
  })

  it("files changed since the loop began: the loop's, not the user's untouched changes from before", async () => {
    const { project } = repo()
    const ignore = [".opencode/"]
    writeFileSync(join(project, "a.ts"), "a, the user's edit\n")
    writeFileSync(join(project, "mine.txt"), "the user's untracked file\n")
    writeFileSync(join(project, "theirs.txt"), "another untracked file of the user\n")
    const start = await snapshotWorkTree(project)
    expect(start?.head).toMatch(/^[0-9a-f]{40}$/)
    expect(start?.tree).toMatch(/^[0-9a-f]{40}$/)
    const changed = async () =>
      (await filesChangedSinceStart(project, start ?? {}, ignore)).map((f) => `${f.code} ${f.path}`)
    expect(await changed()).toEqual([])

    writeFileSync(join(project, "new.ts"), "written by the loop\n")
    writeFileSync(join(project, "mine.txt"), "the user's untracked file, edited by the loop\n")
    unlinkSync(join(project, "theirs.txt"))
    expect(await changed()).toEqual(["?? mine.txt", "?? new.ts", "deleted theirs.txt"])

    git(project, "add", "new.ts")
    git(project, "commit", "-q", "-m", "the loop's commit")
    git(project, "checkout", "a.ts")
    expect(await changed()).toEqual(["reverted a.ts", "?? mine.txt", "committed new.ts", "deleted theirs.txt"])
  })

  it("none of 2,100 untracked files the user had at the start is the loop's (the start is the whole tree, not its first 2,000 files)", async () => {
    const { project } = repo()
    mkdirSync(join(project, "user"))
    for (let i = 0; i < 2_100; i += 1) writeFileSync(join(project, "user", `f${i}.txt`), `the user's ${i}\n`)
    const start = await snapshotWorkTree(project)
    writeFileSync(join(project, "s1.txt"), "the loop's\n")
    expect((await filesChangedSinceStart(project, start ?? {}, [".opencode/"])).map((f) => f.path)).toEqual(["s1.txt"])
  })

  it("names with spaces, quotes, newlines and non-ASCII letters come through whole", async () => {
    const { project } = repo()
    const start = await snapshotWorkTree(project)
    const names = ["a b.txt", "ünïcode 名前.txt", 'quo"te.txt', "new\nline.txt", "*.txt"]
    for (const name of names) writeFileSync(join(project, name), "x\n")
    expect((await filesChangedSinceStart(project, start ?? {}, [])).map((f) => f.path).sort()).toEqual(
      [...names].sort(),
    )
  })

  it("a git that fails is not a clean tree: the start snapshot and the changed files throw", async () => {
    const { root, project } = repo()
    writeFileSync(join(root, ".git", "index"), "not an index")
    await expect(snapshotWorkTree(project)).rejects.toThrow(/git/)
    await expect(changedFiles(project, [])).rejects.toThrow(/git/)
  })
})
