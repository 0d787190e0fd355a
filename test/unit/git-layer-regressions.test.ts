// Sequences the git-layer property test (test/property/git-layer.property.test.ts) found broken,
// played deterministically on real repositories.
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commitLoopWork } from "../../src/changes/auto-commit.js"
import { makeCheckpoint, restoreCheckpoint, saveBeforeRollback } from "../../src/checkpoints/checkpoint-git.js"
import { snapshotWorkTree } from "../../src/changes/work-tree.js"
import { commitWork, createWorktree, fastForward, mergeBranch } from "../../src/worktrees/worktree-git.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

function repo(): string {
  const dir = tmp("git-layer-")
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.name", "The User")
  git(dir, "config", "user.email", "user@example.invalid")
  writeFileSync(join(dir, "app.ts"), "app\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  return dir
}

async function loopStart(dir: string) {
  const start = await snapshotWorkTree(dir)
  return { startHead: start?.head, startTree: start?.tree }
}

describe("autoCommit after the agent's own git commands", () => {
  it("commits a file the agent removed with git rm (its deletion staged already) with the rest of its work", async () => {
    const dir = repo()
    const loop = await loopStart(dir)
    git(dir, "rm", "-q", "app.ts")
    writeFileSync(join(dir, "new.ts"), "new\n")
    const result = await commitLoopWork(dir, loop, [".opencode/"], "story S-1: first")
    expect(result).toMatchObject({ files: 2 })
    expect(git(dir, "show", "--name-status", "--format=", "HEAD")).toBe("D\tapp.ts\nA\tnew.ts\n")
    expect(git(dir, "status", "--porcelain")).toBe("")
  })

  /** A new file staged (never committed) before the loop, which the agent deletes. */
  async function stagedThenDeleted(dir: string) {
    writeFileSync(join(dir, "scratch.ts"), "scratch\n")
    git(dir, "add", "scratch.ts")
    const loop = await loopStart(dir)
    unlinkSync(join(dir, "scratch.ts"))
    return loop
  }

  it("commits the rest of the work when a file added to the index is gone again (nothing of it to commit)", async () => {
    const dir = repo()
    const loop = await stagedThenDeleted(dir)
    writeFileSync(join(dir, "new.ts"), "new\n")
    const result = await commitLoopWork(dir, loop, [".opencode/"], "story S-1: first")
    expect(result).toMatchObject({ files: 1 })
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("new.ts\n")
  })

  it("commits nothing, the index as it was, when all the loop's changes come to nothing against HEAD", async () => {
    const dir = repo()
    const loop = await stagedThenDeleted(dir)
    expect(await commitLoopWork(dir, loop, [".opencode/"], "story S-1: first")).toEqual({
      skipped: "the story changed no files",
    })
    expect(git(dir, "status", "--porcelain")).toBe("AD scratch.ts\n")
    expect(git(dir, "log", "--format=%s")).toBe("start\n")
  })

  it("commits a tracked file in a folder git ignores (git add -A refuses its path: 'Use -f')", async () => {
    const dir = repo()
    writeFileSync(join(dir, ".gitignore"), "build/\n")
    mkdirSync(join(dir, "build"))
    writeFileSync(join(dir, "build", "keep.txt"), "kept\n")
    git(dir, "add", ".gitignore")
    git(dir, "add", "-f", "build/keep.txt")
    git(dir, "commit", "-q", "-m", "a tracked file in an ignored folder")
    const loop = await loopStart(dir)
    writeFileSync(join(dir, "build", "keep.txt"), "the agent's edit\n")
    writeFileSync(join(dir, "new.ts"), "new\n")
    const result = await commitLoopWork(dir, loop, [".opencode/"], "story S-1: first")
    expect(result).toMatchObject({ files: 2 })
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("build/keep.txt\nnew.ts\n")
    expect(git(dir, "status", "--porcelain")).toBe("")
  })

  it("commits a file the agent renamed with git mv as a rename: the old name's deletion too, nothing left staged", async () => {
    const dir = repo()
    const loop = await loopStart(dir)
    git(dir, "mv", "app.ts", "lib.ts")
    const result = await commitLoopWork(dir, loop, [".opencode/"], "story S-1: first")
    expect(result).toMatchObject({ files: 2 })
    expect(git(dir, "ls-tree", "--name-only", "HEAD")).toBe("lib.ts\n")
    expect(git(dir, "status", "--porcelain")).toBe("")
  })
})

describe("files git ignores stay as the user has them", () => {
  it("autoCommit does not commit a user's ignored file that the agent's edit of .gitignore made visible (not written since the loop began)", async () => {
    const dir = repo()
    writeFileSync(join(dir, ".gitignore"), "*.env\n")
    writeFileSync(join(dir, "secret.env"), "KEY=the user's\n")
    git(dir, "add", ".gitignore")
    git(dir, "commit", "-q", "-m", "ignore .env")
    const startedAt = Date.now()
    const loop = { startedAt, ...(await loopStart(dir)) }
    writeFileSync(join(dir, ".gitignore"), "build/\n")
    const result = await commitLoopWork(dir, loop, [".opencode/"], "story S-1: first")
    expect(result).toMatchObject({ files: 1 })
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe(".gitignore\n")
    expect(git(dir, "status", "--porcelain")).toBe("?? secret.env\n")
  })

  it("a rollback does not write over a file ignored since the checkpoint was made (its content is in no checkpoint)", async () => {
    const dir = repo()
    writeFileSync(join(dir, "secret.env"), "KEY=old\n")
    const start = await makeCheckpoint(dir, "ses_a", 0)
    writeFileSync(join(dir, ".gitignore"), "*.env\n")
    git(dir, "add", ".gitignore")
    writeFileSync(join(dir, "secret.env"), "KEY=new\n")
    const saved = await saveBeforeRollback(dir, "ses_a")
    const changes = await restoreCheckpoint(dir, saved?.commit ?? "", start?.commit ?? "")
    expect(readFileSync(join(dir, "secret.env"), "utf8")).toBe("KEY=new\n")
    expect(changes).toEqual([{ status: "D", path: ".gitignore" }])
  })

  for (const kind of ["fast-forward", "merge"] as const)
    it(`a ${kind} of a worktree's branch does not write over an ignored file of the user's (git would, silently)`, async () => {
      const dir = repo()
      writeFileSync(join(dir, ".gitignore"), "*.log\n")
      git(dir, "add", ".gitignore")
      git(dir, "commit", "-q", "-m", "ignore logs")
      writeFileSync(join(dir, "debug.log"), "the user's own notes\n")
      const { path } = await createWorktree(dir, "wt", false)
      writeFileSync(join(path, "debug.log"), "the agent's\n")
      git(path, "add", "-f", "debug.log")
      await commitWork(path, "ralph: the task")
      const merging =
        kind === "fast-forward"
          ? fastForward(dir, "ralph/wt")
          : mergeBranch(dir, "ralph/wt", "Merge ralph/wt: the task")
      await expect(merging).rejects.toThrow(/debug\.log/)
      expect(readFileSync(join(dir, "debug.log"), "utf8")).toBe("the user's own notes\n")
      expect(git(dir, "log", "-1", "--format=%s")).toBe("ignore logs\n")
    })
})

describe("a worktree's merge commit into a main tree with the user's uncommitted work", () => {
  /** main with a commit of its own since the worktree began (so the merge is a real one, not a fast-forward). */
  async function branchToMerge(): Promise<string> {
    const dir = repo()
    writeFileSync(join(dir, "user.txt"), "the user's\n")
    git(dir, "add", "user.txt")
    git(dir, "commit", "-q", "-m", "the user's file")
    const { path } = await createWorktree(dir, "wt", false)
    writeFileSync(join(path, "app.ts"), "the agent's\n")
    await commitWork(path, "ralph: the task")
    writeFileSync(join(dir, "other.txt"), "other\n")
    git(dir, "add", "other.txt")
    git(dir, "commit", "-q", "-m", "main moved on")
    return dir
  }

  it("is not made while the index holds staged changes: git's failed merge would reset the work tree and put it back from a stash, losing what was staged", async () => {
    const dir = await branchToMerge()
    writeFileSync(join(dir, "new.txt"), "added, then deleted from the work tree\n")
    git(dir, "add", "new.txt")
    unlinkSync(join(dir, "new.txt"))
    const refused = await mergeBranch(dir, "ralph/wt", "Merge ralph/wt: the task").then(
      () => undefined,
      (error: unknown) => String(error),
    )
    expect(git(dir, "status", "--porcelain", "--", ".", ":!.opencode")).toBe("AD new.txt\n")
    expect(refused).toMatch(/staged changes/)
  })

  it("is not made when a file it must write has uncommitted changes, which are named", async () => {
    const dir = await branchToMerge()
    writeFileSync(join(dir, "app.ts"), "the user's edit\n")
    await expect(mergeBranch(dir, "ralph/wt", "Merge ralph/wt: the task")).rejects.toThrow(/app\.ts/)
    expect(readFileSync(join(dir, "app.ts"), "utf8")).toBe("the user's edit\n")
    expect(git(dir, "log", "-1", "--format=%s")).toBe("main moved on\n")
  })

  it("is made when the user's changes are elsewhere, and leaves them as they were", async () => {
    const dir = await branchToMerge()
    writeFileSync(join(dir, "user.txt"), "the user's edit\n")
    writeFileSync(join(dir, "notes.md"), "untracked\n")
    await mergeBranch(dir, "ralph/wt", "Merge ralph/wt: the task")
    expect(git(dir, "log", "-1", "--format=%s")).toBe("Merge ralph/wt: the task\n")
    expect(git(dir, "status", "--porcelain", "--", ".", ":!.opencode")).toBe(" M user.txt\n?? notes.md\n")
    expect(readFileSync(join(dir, "app.ts"), "utf8")).toBe("the agent's\n")
  })
})
