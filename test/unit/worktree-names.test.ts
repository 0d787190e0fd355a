// Worktree names are branch names: the rule of git's check-ref-format, as a pure function (checked
// here against git itself), and a parallel run's story names — valid, and distinct for each story.
import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { storyWorktreeName } from "../../src/worktrees/parallel.js"
import { branchNameProblem, branchOf, invalidName } from "../../src/worktrees/names.js"

const gitTakes = (branch: string): boolean =>
  spawnSync("git", ["check-ref-format", "--branch", branch], { stdio: "ignore" }).status === 0

const BRANCHES = [
  "ralph/story-us-1",
  "ralph/a.b",
  "ralph/a..b",
  "ralph/x.lock",
  "ralph/x.lock.y",
  "ralph/x.",
  "ralph/.x",
  "ralph/a/.b",
  "ralph/a@{b",
  "ralph/a@b",
  "ralph/@",
  "@",
  "ralph/a b",
  "ralph/a~1",
  "ralph/a^",
  "ralph/a:b",
  "ralph/a?",
  "ralph/a*",
  "ralph/a[b",
  "ralph/a\\b",
  "ralph/a\tb",
  "ralph/a\x7fb",
  "ralph/a\x01b",
  "ralph//a",
  "ralph/a/",
  "/ralph/a",
  "-ralph",
  "ralph/-a",
  "ralph/é",
  "ralph/a_b-c.d",
  `ralph/${"x".repeat(300)}`,
  "ralph/a.lock/b",
]

describe("branch names by git's rules", () => {
  it.each(BRANCHES.map((b) => [JSON.stringify(b), b]))("%s: as git check-ref-format --branch says", (_, branch) => {
    expect(branchNameProblem(branch) === undefined).toBe(gitTakes(branch as string))
  })

  it("a worktree name is refused with git's reason", () => {
    expect(invalidName("x.lock")).toBe(
      '"x.lock" is not a worktree name: git refuses it as a branch name (it has a part that ends with .lock (x.lock))',
    )
    expect(invalidName("a..b")).toContain("has two dots in a row")
    expect(invalidName("a.")).toContain("ends with a dot")
    expect(invalidName("story-us-1")).toBeUndefined()
  })
})

describe("a parallel run's story worktree names", () => {
  const ids = [
    "US-1",
    "US 1",
    "us_1",
    "a..b",
    "x.lock",
    "trailing.",
    "@{-1}",
    "ctl\x01\x7f",
    "é",
    "",
    "...",
    "-",
    `${"long".repeat(40)}A`,
    `${"long".repeat(40)}B`,
    "1.2",
    "S1",
    "s1",
  ]
  const stories = ids.map((id) => ({ id }))
  const names = ids.map((id) => storyWorktreeName(id, stories))

  it("are valid worktree names and branches git takes", () => {
    for (const name of names) {
      expect(invalidName(name), name).toBeUndefined()
      expect(gitTakes(branchOf(name)), name).toBe(true)
    }
  })

  it("are distinct for distinct stories, also where the ids differ only in case or in what a name cannot hold", () => {
    expect(new Set(names).size).toBe(ids.length)
  })

  it("are the id in lower case where it already is a name no other story's id meets; else they carry a hash of the id", () => {
    expect(storyWorktreeName("US-001", [{ id: "US-001" }, { id: "US-002" }])).toBe("story-us-001")
    expect(storyWorktreeName("1.2", [{ id: "1.2" }])).toBe("story-1.2")
    expect(storyWorktreeName("US 1", [{ id: "US 1" }])).toBe("story-us-1--2f5014dd")
    // S1 and s1 would share story-s1 (and one folder on a case-insensitive disk).
    expect(storyWorktreeName("S1", stories)).toMatch(/^story-s1--[0-9a-f]{8}$/)
    expect(storyWorktreeName("S1", [{ id: "S1" }, { id: "S2" }])).toBe("story-s1")
    expect(storyWorktreeName("a..b", stories)).toMatch(/^story-a\.b--[0-9a-f]{8}$/)
    expect(names.every((name) => name.length <= 64)).toBe(true)
  })
})
