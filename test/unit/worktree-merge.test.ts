// What a completed worktree loop's branch does, by mergeStrategy, and how worktrees are named.
import { describe, expect, it } from "vitest"
import { mergeAction, type MergeFacts } from "../../src/worktrees/merge-plan.js"
import { invalidName, looksLikeWorktreeName, nameFromTask } from "../../src/worktrees/names.js"

const facts = (over: Partial<MergeFacts> = {}): MergeFacts => ({
  strategy: "ff-or-branch",
  branch: "ralph/a",
  ahead: true,
  onBaseBranch: true,
  baseBranch: "main",
  fastForward: true,
  mainClean: true,
  conflicts: [],
  ...over,
})

describe("the merge back", () => {
  it("ff-or-branch fast-forwards only a branch that has not moved, in a clean work tree", () => {
    expect(mergeAction(facts())).toEqual({ kind: "fast-forward" })
    expect(mergeAction(facts({ fastForward: false }))).toEqual({
      kind: "keep",
      reason: "main has moved since the loop began",
    })
    expect(mergeAction(facts({ mainClean: false }))).toEqual({
      kind: "keep",
      reason: "the main work tree has uncommitted changes",
    })
  })

  it("merge makes a merge commit, unless files would conflict: then they are named", () => {
    expect(mergeAction(facts({ strategy: "merge", fastForward: false, mainClean: false }))).toEqual({ kind: "merge" })
    expect(mergeAction(facts({ strategy: "merge", conflicts: ["a.txt"] }))).toEqual({
      kind: "conflict",
      files: ["a.txt"],
    })
  })

  it("none, another branch checked out, a detached start or nothing done keep the branch or do nothing", () => {
    expect(mergeAction(facts({ strategy: "none" }))).toEqual({ kind: "keep", reason: "mergeStrategy is none" })
    expect(mergeAction(facts({ onBaseBranch: false }))).toEqual({
      kind: "keep",
      reason: "the main work tree is no longer on main",
    })
    expect(mergeAction(facts({ onBaseBranch: false, baseBranch: undefined }))).toEqual({
      kind: "keep",
      reason: "the worktree was made from a detached HEAD",
    })
    expect(mergeAction(facts({ ahead: false, strategy: "merge" }))).toEqual({
      kind: "nothing",
      reason: "the loop left no change to merge",
    })
  })
})

describe("worktree names", () => {
  it("a word after --worktree is a name only when it could be nothing else", () => {
    expect(looksLikeWorktreeName("auth-fix")).toBe(true)
    expect(looksLikeWorktreeName("try2")).toBe(true)
    expect(looksLikeWorktreeName("fix")).toBe(false)
    expect(looksLikeWorktreeName("-x")).toBe(false)
  })

  it("refuses what git would refuse", () => {
    expect(invalidName("a b")).toContain("not a worktree name")
    expect(invalidName("x.lock")).toContain("git refuses")
    expect(invalidName("a..b")).toContain("git refuses")
    expect(invalidName("ok_1")).toBeUndefined()
  })

  it("derives a unique name from the task", () => {
    expect(nameFromTask("Fix the login bug in @src/auth.ts", new Set())).toBe("fix-the-login-bug-in-src-auth-ts")
    expect(nameFromTask("add tests", new Set(["add-tests", "add-tests-2"]))).toBe("add-tests-3")
    expect(nameFromTask("!!!", new Set())).toBe("loop")
  })
})
