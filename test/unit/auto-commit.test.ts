// autoCommit's git side on real repositories: a story's files committed on the branch (and only
// they), and the refusals — a detached HEAD, a conflict in the index, a hook that says no (never
// bypassed with --no-verify), a story that changed nothing.
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commitLoopWork, commitStory } from "../../src/changes/auto-commit.js"
import { snapshotWorkTree } from "../../src/changes/work-tree.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

function repo(): string {
  const dir = tmp("auto-commit-")
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.name", "The User")
  git(dir, "config", "user.email", "user@example.invalid")
  writeFileSync(join(dir, "a.txt"), "a\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  return dir
}

describe("autoCommit: commitStory", () => {
  it("commits only the story's files on the current branch, the user's other changes left as they were", async () => {
    const dir = repo()
    writeFileSync(join(dir, "story.txt"), "the story's work\n")
    writeFileSync(join(dir, "a.txt"), "the user's own edit\n")
    const result = await commitStory(dir, ["story.txt"], "story S-1: first")
    expect(result).toEqual({ committed: `main ${git(dir, "rev-parse", "--short", "HEAD")}`, files: 1 })
    expect(git(dir, "log", "--format=%s")).toBe("story S-1: first\nstart")
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("story.txt")
    expect(git(dir, "status", "--porcelain")).toBe("M a.txt")
  })

  it("in a project below the repository's top: the story's edits, new files and removals committed, the user's index then holding them as committed and keeping what the user staged", async () => {
    const dir = repo()
    const project = join(dir, "pkg")
    mkdirSync(project)
    writeFileSync(join(project, "kept.txt"), "kept\n")
    writeFileSync(join(project, "gone.txt"), "gone\n")
    writeFileSync(join(dir, "theirs.txt"), "theirs\n")
    git(dir, "add", ".")
    git(dir, "commit", "-q", "-m", "files")
    writeFileSync(join(dir, "theirs.txt"), "the user's staged edit\n")
    git(dir, "add", "theirs.txt")
    writeFileSync(join(project, "kept.txt"), "the story's edit\n")
    writeFileSync(join(project, "new.txt"), "the story's new file\n")
    unlinkSync(join(project, "gone.txt"))
    expect(await commitStory(project, ["kept.txt", "new.txt", "gone.txt"], "story S-1: below")).toMatchObject({
      files: 3,
    })
    expect(git(dir, "show", "--name-status", "--format=", "HEAD").split("\n").sort()).toEqual([
      "A\tpkg/new.txt",
      "D\tpkg/gone.txt",
      "M\tpkg/kept.txt",
    ])
    expect(git(dir, "status", "--porcelain")).toBe("M  theirs.txt")
  })

  // Found by the git-layer property test: a story's file the commit leaves as HEAD has it (written
  // back by a rollback, reverted) keeps its index entry — a staged rename or edit from before the loop stays staged.
  it("a story's file the commit leaves as HEAD has it keeps what the index staged for it", async () => {
    const dir = repo()
    writeFileSync(join(dir, "b.txt"), "b\n")
    git(dir, "add", "b.txt")
    git(dir, "commit", "-q", "-m", "b")
    git(dir, "mv", "a.txt", "moved a.txt")
    // Put back on disk as HEAD has it (a rollback); the staged rename is not the commit's.
    renameSync(join(dir, "moved a.txt"), join(dir, "a.txt"))
    unlinkSync(join(dir, "b.txt"))
    expect(await commitStory(dir, ["a.txt", "moved a.txt", "b.txt"], "story S-1: b gone")).toMatchObject({ files: 1 })
    expect(git(dir, "show", "--name-status", "--format=", "HEAD")).toBe("D\tb.txt")
    expect(
      git(dir, "ls-files", "--stage")
        .split("\n")
        .map((line) => line.split("\t")[1]),
    ).toEqual(["moved a.txt"])
  })

  it("refuses on a detached HEAD, with a conflict in the index, or with no files, and commits nothing", async () => {
    const detached = repo()
    git(detached, "checkout", "-q", "--detach")
    writeFileSync(join(detached, "story.txt"), "work\n")
    expect(await commitStory(detached, ["story.txt"], "story S-1: first")).toEqual({
      skipped: "HEAD is detached (or this is not a git repository)",
    })
    expect(git(detached, "log", "--format=%s")).toBe("start")

    const conflicted = repo()
    git(conflicted, "checkout", "-q", "-b", "other")
    writeFileSync(join(conflicted, "a.txt"), "theirs\n")
    git(conflicted, "commit", "-q", "-am", "theirs")
    git(conflicted, "checkout", "-q", "main")
    writeFileSync(join(conflicted, "a.txt"), "ours\n")
    git(conflicted, "commit", "-q", "-am", "ours")
    expect(() => git(conflicted, "merge", "-q", "other")).toThrow()
    writeFileSync(join(conflicted, "story.txt"), "work\n")
    expect(await commitStory(conflicted, ["story.txt"], "story S-1: first")).toEqual({
      skipped: "the index holds a conflict (unmerged files)",
    })
    expect(git(conflicted, "log", "-1", "--format=%s")).toBe("ours")

    expect(await commitStory(repo(), [], "story S-1: first")).toEqual({ skipped: "the story changed no files" })
  })

  it("runs the repository's hooks: a pre-commit hook that refuses fails the commit with its message", async () => {
    const dir = repo()
    const hook = join(dir, ".git/hooks/pre-commit")
    writeFileSync(hook, "#!/bin/sh\necho 'pre-commit: lint failed' >&2\nexit 1\n")
    chmodSync(hook, 0o755)
    writeFileSync(join(dir, "story.txt"), "work\n")
    await expect(commitStory(dir, ["story.txt"], "story S-1: first")).rejects.toThrow("pre-commit: lint failed")
    expect(git(dir, "log", "--format=%s")).toBe("start")
  })

  it("a commit that fails leaves the user's index exactly as it was (what they had staged, and nothing of the story's)", async () => {
    const dir = repo()
    writeFileSync(join(dir, "staged.txt"), "the user staged this\n")
    git(dir, "add", "staged.txt")
    const before = readFileSync(join(dir, ".git/index"))
    const hook = join(dir, ".git/hooks/pre-commit")
    writeFileSync(hook, "#!/bin/sh\nexit 1\n")
    chmodSync(hook, 0o755)
    writeFileSync(join(dir, "s1.txt"), "the story's\n")
    await expect(commitStory(dir, ["s1.txt"], "story S-1: first")).rejects.toThrow()
    expect(readFileSync(join(dir, ".git/index")).equals(before)).toBe(true)
    expect(git(dir, "status", "--porcelain")).toBe("A  staged.txt\n?? s1.txt")
  })

  it("file names that look like pathspecs are those files only", async () => {
    const dir = repo()
    writeFileSync(join(dir, "*.txt"), "the story's\n")
    writeFileSync(join(dir, "b.txt"), "the user's\n")
    await commitStory(dir, ["*.txt"], "story S-1: first")
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("*.txt")
    expect(git(dir, "status", "--porcelain")).toBe("?? b.txt")
  })
})

describe("autoCommit: commitLoopWork (the loop's files against its start)", () => {
  const ignore = [".opencode/"]

  it("commits none of 2,100 untracked files the user had when the loop began", async () => {
    const dir = repo()
    mkdirSync(join(dir, "user"))
    for (let i = 0; i < 2_100; i += 1) writeFileSync(join(dir, "user", `f${i}.txt`), `the user's ${i}\n`)
    const start = await snapshotWorkTree(dir)
    writeFileSync(join(dir, "s1.txt"), "the story's\n")
    const made = await commitLoopWork(
      dir,
      { startHead: start?.head, startTree: start?.tree },
      ignore,
      "story S-1: first",
    )
    expect(made).toMatchObject({ files: 1 })
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("s1.txt")
    expect(git(dir, "status", "--porcelain", "--untracked-files=all").split("\n")).toHaveLength(2_100)
  })

  it("goes on committing after the loop deleted a file that was untracked when it began", async () => {
    const dir = repo()
    writeFileSync(join(dir, "gone.txt"), "untracked at the start\n")
    const start = { startHead: (await snapshotWorkTree(dir))?.head, startTree: (await snapshotWorkTree(dir))?.tree }
    unlinkSync(join(dir, "gone.txt"))
    writeFileSync(join(dir, "s1.txt"), "story 1\n")
    expect(await commitLoopWork(dir, start, ignore, "story 1")).toMatchObject({ files: 1 })
    writeFileSync(join(dir, "s2.txt"), "story 2\n")
    expect(await commitLoopWork(dir, start, ignore, "story 2")).toMatchObject({ files: 1 })
    expect(git(dir, "log", "--format=%s")).toBe("story 2\nstory 1\nstart")
  })

  it("commits nothing when the work tree at the loop's start is unknown (git failed then), or was never recorded", async () => {
    const dir = repo()
    writeFileSync(join(dir, "s1.txt"), "story 1\n")
    const unknown = await commitLoopWork(
      dir,
      { startUnknown: "git status: it did not finish in time" },
      ignore,
      "story 1",
    )
    expect(unknown).toEqual({ skipped: expect.stringContaining("could not be read") })
    expect(await commitLoopWork(dir, {}, ignore, "story 1")).toEqual({ skipped: expect.stringContaining("no record") })
    expect(git(dir, "log", "--format=%s")).toBe("start")
  })
})
