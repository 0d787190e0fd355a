// The git side of worktree loops, on real repositories: a worktree from HEAD (with or without the
// user's changes), the loop's work committed there, merged back by fast-forward or merge commit,
// a conflict found without touching the main work tree, and a merged worktree removed.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  commitWork,
  createWorktree,
  fastForward,
  listWorktreeFolders,
  mergeBranch,
  mergeFacts,
  removeWorktree,
  WorktreeError,
} from "../../src/worktrees/worktree-git.js"
import { mergeAction } from "../../src/worktrees/merge-plan.js"
import type { WorktreeState } from "../../src/worktrees/worktree-state.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  }).trim()

function repo(): string {
  const dir = tmp("wt-git-")
  git(dir, "init", "-q", "-b", "main")
  writeFileSync(join(dir, "a.txt"), "a\n")
  writeFileSync(join(dir, "b.txt"), "b\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  return dir
}

async function worktree(dir: string, name: string, withChanges = false): Promise<WorktreeState> {
  const { path, base } = await createWorktree(dir, name, withChanges)
  expect(path).toBe(join(dir, ".opencode/ralph-loop/worktrees", name))
  return { name, branch: `ralph/${name}`, mainDirectory: dir, base, mergeStrategy: "merge", createdAt: 0 }
}

describe("worktrees of a loop", () => {
  it("are made from HEAD on ralph/<NAME>, without the user's uncommitted work unless asked", async () => {
    const dir = repo()
    writeFileSync(join(dir, "a.txt"), "user's edit\n")
    writeFileSync(join(dir, "new.txt"), "untracked\n")
    const plain = await worktree(dir, "plain")
    const path = join(dir, ".opencode/ralph-loop/worktrees/plain")
    expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("a\n")
    expect(existsSync(join(path, "new.txt"))).toBe(false)
    expect(plain.base).toEqual({ branch: "main", commit: git(dir, "rev-parse", "HEAD") })
    expect(git(path, "branch", "--show-current")).toBe("ralph/plain")

    await worktree(dir, "carried", true)
    const carried = join(dir, ".opencode/ralph-loop/worktrees/carried")
    expect(readFileSync(join(carried, "a.txt"), "utf8")).toBe("user's edit\n")
    expect(readFileSync(join(carried, "new.txt"), "utf8")).toBe("untracked\n")
    // The user's own tree is as it was.
    expect(git(dir, "status", "--porcelain", "--", ".", ":(exclude).opencode")).toBe("M a.txt\n?? new.txt") // (trimmed: " M a.txt")
    expect((await listWorktreeFolders(dir)).map((w) => [w.name, w.branch])).toEqual([
      ["carried", "ralph/carried"],
      ["plain", "ralph/plain"],
    ])
  })

  it("made side by side in one repository (a parallel run's ready stories), each is made — and removed side by side, each is removed", async () => {
    // git worktree add reads every other worktree's admin files: one being written at that moment
    // (an empty commondir) made it fail with "failed to read .git/worktrees/<other>/commondir: Success".
    const dir = repo()
    for (let round = 0; round < 4; round += 1) {
      const names = Array.from({ length: 6 }, (_, i) => `r${round}-s${i}`)
      const made = await Promise.allSettled(names.map((name) => createWorktree(dir, name, false)))
      expect(
        made.filter((m) => m.status === "rejected").map((m) => String((m as PromiseRejectedResult).reason)),
      ).toEqual([])
      for (const name of names)
        expect(readFileSync(join(dir, ".opencode/ralph-loop/worktrees", name, "a.txt"), "utf8")).toBe("a\n")
      const removed = await Promise.allSettled(names.map((name) => removeWorktree(dir, name)))
      expect(
        removed.filter((m) => m.status === "rejected").map((m) => String((m as PromiseRejectedResult).reason)),
      ).toEqual([])
    }
    expect((await listWorktreeFolders(dir)).map((w) => w.name)).toEqual([])
  })

  it("refuse a name whose branch exists, and a folder that is no repository", async () => {
    const dir = repo()
    git(dir, "branch", "ralph/taken")
    await expect(createWorktree(dir, "taken", false)).rejects.toThrow("the branch ralph/taken exists already")
    await expect(createWorktree(tmp("not-git-"), "x", false)).rejects.toBeInstanceOf(WorktreeError)
  })

  it("fast-forward the user's branch when it has not moved, then go", async () => {
    const dir = repo()
    const state = await worktree(dir, "ff")
    const path = join(dir, ".opencode/ralph-loop/worktrees/ff")
    writeFileSync(join(path, "c.txt"), "c\n")
    mkdirSync(join(path, ".opencode"), { recursive: true })
    writeFileSync(join(path, ".opencode/state.json"), "{}")
    const commit = await commitWork(path, "ralph: add c")
    expect(git(path, "show", "--name-only", "--format=", "HEAD")).toBe("c.txt")
    expect(await commitWork(path, "again")).toBeUndefined()
    const facts = await mergeFacts(state, "ff-or-branch")
    expect(mergeAction(facts)).toEqual({ kind: "fast-forward" })
    await fastForward(dir, state.branch)
    expect(git(dir, "rev-parse", "HEAD")).toBe(commit)
    expect(readFileSync(join(dir, "c.txt"), "utf8")).toBe("c\n")
    await removeWorktree(dir, "ff")
    expect(existsSync(path)).toBe(false)
    expect(git(dir, "branch", "--list", "ralph/ff")).toBe("")
  })

  it("merge two loops' branches with merge commits; a third that conflicts is found and named, the main tree untouched", async () => {
    const dir = repo()
    const one = await worktree(dir, "one")
    const two = await worktree(dir, "two")
    const three = await worktree(dir, "three")
    const at = (name: string) => join(dir, ".opencode/ralph-loop/worktrees", name)
    writeFileSync(join(at("one"), "a.txt"), "one\n")
    writeFileSync(join(at("two"), "b.txt"), "two\n")
    writeFileSync(join(at("three"), "a.txt"), "three\n")
    for (const name of ["one", "two", "three"]) await commitWork(at(name), `ralph: ${name}`)
    for (const state of [one, two]) {
      const action = mergeAction(await mergeFacts(state, "merge"))
      expect(action).toEqual({ kind: "merge" })
      await mergeBranch(dir, state.branch, `Merge ${state.branch}`)
    }
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("one\n")
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("two\n")
    const head = git(dir, "rev-parse", "HEAD")
    expect(mergeAction(await mergeFacts(three, "merge"))).toEqual({ kind: "conflict", files: ["a.txt"] })
    expect(mergeAction(await mergeFacts(three, "ff-or-branch"))).toEqual({
      kind: "keep",
      reason: "main has moved since the loop began",
    })
    expect(git(dir, "rev-parse", "HEAD")).toBe(head)
    expect(git(dir, "status", "--porcelain", "--", ".", ":(exclude).opencode")).toBe("")
    await expect(removeWorktree(dir, "three")).rejects.toThrow(/not fully merged/)
  })
})
