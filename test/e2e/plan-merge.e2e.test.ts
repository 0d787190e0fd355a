// `ralph-loop plan ready` and `plan merge` (dist/cli/main.js) on real git repositories: story
// branches as `--story` leaves them (a commit from HEAD, the plan file untouched) merged with a merge
// commit each, their stories marked done in the plan's own shape, what became ready printed; a
// branch that would conflict named and kept with the user's tree untouched; a dirty tree refused.
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { isolatedEnv } from "../harness/opencode-server.js"
import { tempDirs } from "../temp-dirs.js"
import { runCli } from "../cli-runner.js"
import { LoopStore } from "../../src/store/loop-store.js"
import type { Evidence } from "../../src/evidence/record.js"
import { loop as fixtureLoop } from "../unit/fixtures.js"

const tempDir = tempDirs()

interface Repo {
  dir: string
  env: NodeJS.ProcessEnv
}

const PLAN = `{
  // Comments and key order stay as they are.
  "project": "demo",
  "userStories": [
    { "id": "s1", "title": "one", "priority": 1, "passes": false, "dependsOn": [] },
    { "id": "s2", "title": "two", "priority": 2, "passes": false, "dependsOn": [] },
    { "id": "s3", "title": "three", "priority": 3, "passes": false, "dependsOn": ["s1", "s2"] }
  ]
}
`

function repo(): Repo {
  const root = tempDir("ralph-plan-merge-")
  const env = { ...isolatedEnv(root), GIT_CONFIG_NOSYSTEM: "1" }
  const dir = join(root, "project")
  mkdirSync(dir)
  const r = { dir, env }
  git(r, "init", "-q", "-b", "main")
  git(r, "config", "user.name", "The User")
  git(r, "config", "user.email", "user@example.invalid")
  writeFileSync(join(dir, "plan.json"), PLAN)
  writeFileSync(join(dir, "shared.txt"), "base\n")
  git(r, "add", ".")
  git(r, "commit", "-q", "-m", "start")
  return r
}

const git = (r: Repo, ...args: string[]) =>
  execFileSync("git", args, { cwd: r.dir, env: r.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

/** A story branch as --story leaves it: one commit from `from` with `files`, the plan file untouched. */
function storyBranch(r: Repo, id: string, files: Record<string, string>, from = "main"): void {
  git(r, "checkout", "-q", "-b", `ralph/story-${id}`, from)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(r.dir, name), text)
  git(r, "add", ".")
  git(r, "commit", "-q", "-m", `story ${id}: work`)
  git(r, "checkout", "-q", "main")
}

function cli(r: Repo, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return runCli(args, { cwd: r.dir, env: r.env })
}

describe("ralph-loop plan ready and plan merge, on real repositories", () => {
  it("merges two story branches with a merge commit each, marks them done in the plan's style, and the story that waited on both is ready", () => {
    const r = repo()
    expect(cli(r, "plan", "ready", "plan.json")).toMatchObject({ status: 0, stdout: "s1\ns2\n" })
    expect(JSON.parse(cli(r, "plan", "ready", "plan.json", "--json").stdout)).toEqual({
      stories: ["s1", "s2"],
      done: [],
      left: 3,
    })
    storyBranch(r, "s1", { "one.txt": "one\n" })
    storyBranch(r, "s2", { "two.txt": "two\n" })
    writeFileSync(join(r.dir, "mine.txt"), "the user's untracked file\n")
    const merged = cli(r, "plan", "merge", "plan.json")
    expect(merged).toEqual({
      status: 0,
      stdout: [
        "ralph/story-s1: merged into main (story s1: one)",
        "ralph/story-s2: merged into main (story s2: two)",
        "plan.json: marked done: s1, s2 (not committed: commit plan.json)",
        "ready now: s3",
        "",
      ].join("\n"),
      stderr: "",
    })
    expect(git(r, "log", "--format=%s", "--first-parent", "main").split("\n")).toEqual([
      "Merge ralph/story-s2: story s2: two",
      "Merge ralph/story-s1: story s1: one",
      "start",
    ])
    expect(git(r, "rev-list", "--merges", "--count", "main")).toBe("2")
    expect(readFileSync(join(r.dir, "plan.json"), "utf8")).toBe(
      PLAN.replace('"one", "priority": 1, "passes": false', '"one", "priority": 1, "passes": true').replace(
        '"two", "priority": 2, "passes": false',
        '"two", "priority": 2, "passes": true',
      ),
    )
    expect(readFileSync(join(r.dir, "mine.txt"), "utf8")).toBe("the user's untracked file\n")
    expect(cli(r, "plan", "ready", "plan.json")).toMatchObject({ status: 0, stdout: "s3\n" })
    // The plan is not committed yet: a second merge refuses the dirty tree.
    const dirty = cli(r, "plan", "merge", "plan.json")
    expect(dirty).toMatchObject({ status: 1, stdout: "" })
    expect(dirty.stderr).toBe(
      "ralph-loop plan merge: nothing merged: the work tree has uncommitted changes to tracked files (plan.json): commit them or put them aside first\n",
    )
    git(r, "commit", "-q", "-am", "plan: s1, s2 done")
    // Merged branches are left out by default: nothing to do, and nothing is written.
    expect(cli(r, "plan", "merge", "plan.json")).toEqual({
      status: 0,
      stdout: "no story became ready (1 not done)\n",
      stderr: "",
    })
  })

  it("names each merged story's evidence, from its archived worktree loop or its --story loop: verified or not, the checks", async () => {
    const r = repo()
    storyBranch(r, "s1", { "one.txt": "one\n" })
    storyBranch(r, "s2", { "two.txt": "two\n" })
    const unit = { name: "unit", command: "npm test", outputSha256: "", ranAt: 1 }
    const verified = {
      verified: true,
      checks: [{ ...unit, exitCode: 0, tests: { passed: 3, failed: 0, skipped: 0 } }],
      changedFiles: ["one.txt"],
      review: null,
      weakened: [],
    }
    const failed = { ...verified, verified: false, checks: [{ ...unit, exitCode: 1, tests: null }] }
    const planOf = (id: string, evidence: Evidence) => ({
      file: "plan.json",
      shape: "userStories" as const,
      stories: [],
      done: [{ id, iteration: 2, checks: ["unit"], evidence }],
    })
    // s1 by a parallel run's worktree loop, archived; s2 by a `run --story` loop in the project's own files.
    const archive = join(r.dir, ".opencode/ralph-loop/merged/story-s1")
    mkdirSync(archive, { recursive: true })
    const archived = new LoopStore(archive)
    await archived.save({ ...fixtureLoop({ id: "ses_s1" }), plan: planOf("s1", verified) }, "stopped:completed", 1)
    const own = new LoopStore(r.dir)
    await own.save({ ...fixtureLoop({ id: "ses_s2" }), plan: planOf("s2", failed) }, "stopped:completed", 1)
    const merged = cli(r, "plan", "merge", "plan.json")
    expect(merged.status, merged.stderr).toBe(0)
    expect(merged.stdout.split("\n")).toEqual([
      "ralph/story-s1: merged into main (story s1: one)",
      "ralph/story-s2: merged into main (story s2: two)",
      "ralph/story-s1: story s1: verified — unit 3 passed",
      "ralph/story-s2: story s2: not verified: unit failed (unit exit 1)",
      "plan.json: marked done: s1, s2 (not committed: commit plan.json)",
      "ready now: s3",
      "",
    ])
  })

  it("an empty story branch (made from main, never committed on) marks nothing: it is named as holding no commit of its own; exit 1", () => {
    const r = repo()
    git(r, "branch", "ralph/story-s1")
    storyBranch(r, "s2", { "two.txt": "two\n" })
    const merged = cli(r, "plan", "merge", "plan.json")
    expect(merged).toEqual({
      status: 1,
      stdout: [
        "ralph/story-s2: merged into main (story s2: two)",
        "plan.json: marked done: s2 (not committed: commit plan.json)",
        "no story became ready (2 not done)",
        "",
      ].join("\n"),
      stderr:
        "ralph-loop plan merge: ralph/story-s1: not merged: it holds no commit of its own (its tip is a commit of " +
        "the branch it would be merged into): none of story s1's work is on it, so the story stays not done\n",
    })
    expect(readFileSync(join(r.dir, "plan.json"), "utf8")).toContain('"one", "priority": 1, "passes": false')
  })

  it("a branch that would conflict is named with its files and kept, the tree untouched; the others are merged; exit 1", () => {
    const r = repo()
    storyBranch(r, "s1", { "shared.txt": "s1's version\n" })
    storyBranch(r, "s2", { "shared.txt": "s2's version\n", "two.txt": "two\n" })
    const head = () => git(r, "rev-parse", "HEAD")
    const result = cli(r, "plan", "merge", "plan.json")
    expect(result.status).toBe(1)
    expect(result.stdout).toBe(
      [
        "ralph/story-s1: merged into main (story s1: one)",
        "plan.json: marked done: s1 (not committed: commit plan.json)",
        "no story became ready (2 not done)",
        "",
      ].join("\n"),
    )
    expect(result.stderr).toBe(
      "ralph-loop plan merge: ralph/story-s2: not merged: merging it into main would conflict in shared.txt; the branch is kept and main is as it was (merge it by hand: git merge ralph/story-s2)\n",
    )
    expect(git(r, "rev-parse", "-q", "--verify", "ralph/story-s2")).not.toBe("")
    expect(git(r, "status", "--porcelain")).toBe("M plan.json")
    expect(readFileSync(join(r.dir, "shared.txt"), "utf8")).toBe("s1's version\n")
    expect(git(r, "log", "-1", "--format=%s")).toBe("Merge ralph/story-s1: story s1: one")
    expect(head()).toBe(git(r, "rev-parse", "main"))
  })

  it("a merge git stops half-way (a pre-merge-commit hook says no) is aborted: the tree as it was, the branch kept; exit 1", () => {
    const r = repo()
    storyBranch(r, "s1", { "one.txt": "one\n" })
    writeFileSync(join(r.dir, ".git", "hooks", "pre-merge-commit"), "#!/bin/sh\necho 'no merges today' >&2\nexit 1\n", {
      mode: 0o755,
    })
    const head = git(r, "rev-parse", "HEAD")
    const result = cli(r, "plan", "merge", "plan.json")
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(
      /^ralph-loop plan merge: ralph\/story-s1: not merged: the merge failed \(.*no merges today.*\); the branch is kept and main is as it was/,
    )
    expect(git(r, "rev-parse", "HEAD")).toBe(head)
    expect(git(r, "status", "--porcelain", "--untracked-files=all")).toBe("")
    expect(spawnSync("git", ["rev-parse", "-q", "--verify", "MERGE_HEAD"], { cwd: r.dir, env: r.env }).status).toBe(1)
  })

  it("branches named on the command line, a remote's branches after a fetch, and what it refuses (exit 1 / 2)", () => {
    const r = repo()
    expect(cli(r, "plan", "merge", "plan.json")).toEqual({
      status: 0,
      stdout:
        "no ralph/story-* branch to merge (a remote's are seen once fetched: git fetch)\nno story became ready (3 not done)\n",
      stderr: "",
    })
    storyBranch(r, "s1", { "one.txt": "one\n" })
    // A clone stands in for the merge job's runner: the story branch is only its remote's.
    const clone = { dir: join(r.dir, "..", "clone"), env: r.env }
    execFileSync("git", ["clone", "-q", r.dir, clone.dir], { env: r.env })
    expect(git(clone, "branch", "--list", "ralph/*")).toBe("")
    expect(cli(clone, "plan", "merge", "plan.json")).toMatchObject({
      status: 0,
      stdout: expect.stringContaining("origin/ralph/story-s1: merged into main (story s1: one)\n"),
    })
    expect(cli(r, "plan", "merge", "plan.json", "ralph/story-nope", "main")).toEqual({
      status: 1,
      stdout: "no story became ready (3 not done)\n",
      stderr:
        "ralph-loop plan merge: ralph/story-nope: no such branch\nralph-loop plan merge: main: not merged: it is no story's branch in this plan\n",
    })
    expect(cli(r, "plan", "merge", "--bogus").status).toBe(2)
    expect(cli(r, "plan", "merge", "ralph/story-s1")).toMatchObject({
      status: 1,
      stderr: expect.stringContaining("the plan file .opencode/prd.json does not exist"),
    })
    git(r, "checkout", "-q", "--detach")
    expect(cli(r, "plan", "merge", "plan.json")).toMatchObject({
      status: 1,
      stderr:
        "ralph-loop plan merge: nothing merged: HEAD is detached: check out the branch the stories are merged into\n",
    })
  })
})
