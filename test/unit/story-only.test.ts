// /ralph --prd PATH --story ID: a plan loop of one story. It works that story whatever the plan's
// order, completes when it is done and never moves on; what it leaves behind is a commit on the
// story's branch, never the plan file; and the flag and the story are checked before it starts.
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Effect } from "../../src/engine/effects.js"
import type { JobContext } from "../../src/engine/jobs/context.js"
import { recordIteration } from "../../src/engine/jobs/record.js"
import { commitStoryBranch, storyBranchProblem } from "../../src/worktrees/story-commit.js"
import { snapshotWorkTree } from "../../src/changes/work-tree.js"
import { parseRalphArgs } from "../../src/commands/ralph-args.js"
import { decide, type Facts } from "../../src/loop/decide.js"
import type { Loop } from "../../src/loop/loop.js"
import { currentStory, markCurrentDone, onlyStoryProblem, type PlanState, type Story } from "../../src/plan/plan.js"
import { storySection } from "../../src/plan/prompts.js"
import { storyBranch, storyOfBranch } from "../../src/worktrees/story-branch.js"
import { parseStateText, stateText } from "../../src/store/loop-store.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"

const tmp = tempDirs()
const story = (id: string, extra: Partial<Story> = {}): Story => ({
  id,
  title: `title of ${id}`,
  acceptanceCriteria: [],
  dependsOn: [],
  checks: [],
  ...extra,
})
const STORIES = [story("s1", { priority: 1 }), story("s2", { priority: 2 }), story("s3", { dependsOn: ["s1", "s2"] })]
const plan = (only?: string, done: string[] = []): PlanState => ({
  file: "plan.json",
  shape: "userStories",
  stories: STORIES,
  done: done.map((id) => ({ id, iteration: 0, checks: [] })),
  ...(only !== undefined ? { only } : {}),
})

describe("/ralph --story: the flag", () => {
  it("goes with --prd, takes the id as typed (quoted too), and leaves the rest as the task", () => {
    expect(parseRalphArgs("--prd plan.json --story s2")).toEqual({
      ok: true,
      task: "",
      overrides: {},
      prd: "plan.json",
      story: "s2",
    })
    expect(parseRalphArgs('--prd --story="US 1" go')).toEqual({
      ok: true,
      task: "go",
      overrides: {},
      prd: true,
      story: "US 1",
    })
    expect(parseRalphArgs("--story 'US 2' --prd p.json --max-iterations 3")).toEqual({
      ok: true,
      task: "",
      overrides: { maxIterations: 3 },
      prd: "p.json",
      story: "US 2",
    })
  })

  it("refuses a missing or empty id, a second --story, and --story without --prd or with --parallel", () => {
    expect(parseRalphArgs("--prd plan.json --story")).toEqual({
      ok: false,
      error: "--story needs the id of a story of the plan",
    })
    expect(parseRalphArgs("--prd plan.json --story --max-iterations 3")).toEqual({
      ok: false,
      error: "--story needs the id of a story of the plan",
    })
    expect(parseRalphArgs("--prd plan.json --story=")).toEqual({
      ok: false,
      error: '--story "" is not a story id (empty, or with spaces around it)',
    })
    expect(parseRalphArgs("--prd plan.json --story ' s1'")).toEqual({
      ok: false,
      error: '--story " s1" is not a story id (empty, or with spaces around it)',
    })
    expect(parseRalphArgs("--prd plan.json --story 'a\u0007b'")).toEqual({
      ok: false,
      error: '--story "a\\u0007b" is not a story id (it holds a control character)',
    })
    expect(parseRalphArgs("--prd plan.json --story s1 --story s2")).toEqual({
      ok: false,
      error: "--story is given twice",
    })
    expect(parseRalphArgs("do it --story s1")).toEqual({
      ok: false,
      error: "--story goes with --prd (it runs one story of a plan: /ralph --prd PATH --story ID)",
    })
    expect(parseRalphArgs("--prd --parallel 2 --story s1")).toMatchObject({
      ok: false,
      error: expect.stringContaining("give one of them"),
    })
  })
})

describe("/ralph --story: the story", () => {
  it("must be in the plan, not done, and every story it depends on done", () => {
    expect(onlyStoryProblem(plan(), "s2")).toBeUndefined()
    expect(onlyStoryProblem(plan(), "s9")).toBe('the plan plan.json has no story "s9" (its stories: s1, s2, s3)')
    expect(onlyStoryProblem(plan(undefined, ["s2"]), "s2")).toBe("story s2 of the plan plan.json is done already")
    expect(onlyStoryProblem(plan(undefined, ["s1"]), "s3")).toBe(
      "story s3 is not ready: it depends on s2, not done in plan.json (ralph-loop plan ready lists the stories that can start)",
    )
    expect(onlyStoryProblem(plan(undefined, ["s1", "s2"]), "s3")).toBeUndefined()
  })

  it("is the current story until it is done, then none: the loop never moves on to another", () => {
    const p = plan("s2")
    expect(currentStory(p)?.id).toBe("s2")
    const done = markCurrentDone(p, 3, ["test"])
    expect(done.done).toEqual([{ id: "s2", iteration: 3, checks: ["test"] }])
    expect(currentStory(done)).toBeUndefined()
    expect(markCurrentDone(done, 4, [])).toEqual(done)
  })

  it("a kept promise completes the loop at once, with the other stories of the plan left", () => {
    const facts: Facts = {
      turn: { lastAssistantID: "msg_1", texts: ["<promise>DONE</promise>"] },
      sample: { workTree: "same", todosCompleted: 0, sessionID: "ses_a", openTodos: [] },
      now: 1_000,
    }
    const { decision, update } = decide(loop({ plan: plan("s2"), iteration: 1 }), facts)
    expect(decision).toEqual({
      type: "complete",
      detail: "story s2 of the plan is done (the one story of this loop): the promise was kept",
    })
    expect(update.plan?.done.map((d) => d.id)).toEqual(["s2"])
  })

  it("is kept through the state file, and the prompt tells the model it is the one story and not to touch the plan", () => {
    const l = loop({ plan: plan("s2") })
    expect(parseStateText(stateText(l, 0)).loop.plan?.only).toBe("s2")
    expect(storySection(plan("s2"), []).join("\n")).toContain("This loop works on this story only")
    expect(storySection(plan(), []).join("\n")).not.toContain("This loop works on this story only")
  })

  it("has the branch a parallel run gives its worktree, and plan merge finds the story from it", () => {
    expect(storyBranch("s2", STORIES)).toBe("ralph/story-s2")
    expect(storyBranch("US 1", [story("US 1")])).toMatch(/^ralph\/story-us-1--[0-9a-f]{8}$/)
    expect(storyOfBranch("ralph/story-s2", STORIES)).toBe("s2")
    expect(storyOfBranch("ralph/story-s9", STORIES)).toBeUndefined()
  })
})

/** Runs recordIteration, answering its effects; the kinds it asked for. */
function record(l: Loop, story: Story): Effect["kind"][] {
  const ctx = { now: () => 1_000 } as unknown as JobContext
  const job = recordIteration(ctx, l, {
    decision: { type: "complete", detail: "" },
    turn: { lastAssistantID: "m", texts: [] },
    snapshot: undefined,
    story,
  })
  const kinds: Effect["kind"][] = []
  const answers: Partial<Record<Effect["kind"], unknown>> = {
    "write-plan": { changed: [] },
    "story-branch": { committed: "ralph/story-s2 abc1234", files: 1 },
    "commit-story": { skipped: "x" },
    "changed-files": [],
  }
  for (let step = job.next(); !step.done; step = job.next(answers[step.value.kind])) kinds.push(step.value.kind)
  return kinds
}

describe("/ralph --story: what a story done leaves behind", () => {
  it("a commit on its branch, and the plan file untouched — autoCommit or not", () => {
    const s2 = STORIES[1] as Story
    const only = { plan: { ...plan("s2"), done: [{ id: "s2", iteration: 1, checks: [] }] }, iteration: 1 }
    for (const autoCommit of [false, true]) {
      const kinds = record(loop(only, { autoCommit }), s2)
      expect(kinds).toContain("story-branch")
      expect(kinds).not.toContain("write-plan")
      expect(kinds).not.toContain("commit-story")
    }
    // A whole plan's loop writes the plan file and makes no story branch.
    const whole = record(
      loop({ plan: { ...plan(), done: [{ id: "s1", iteration: 1, checks: [] }] }, iteration: 1 }),
      STORIES[0] as Story,
    )
    expect(whole).toContain("write-plan")
    expect(whole).not.toContain("story-branch")
  })
})

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

function repo(): string {
  const dir = tmp("story-branch-")
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.name", "The User")
  git(dir, "config", "user.email", "user@example.invalid")
  writeFileSync(join(dir, "a.txt"), "a\n")
  writeFileSync(join(dir, "gone.txt"), "to be deleted\n")
  writeFileSync(join(dir, "plan.json"), "{}\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  return dir
}

/** The loop's start as the plugin captures it: HEAD and the work tree's tree. */
async function started(dir: string) {
  return {
    startedAt: Date.now() - 60_000,
    startHead: git(dir, "rev-parse", "HEAD"),
    startTree: await snapshotWorkTree(dir).then((s) => s?.tree),
  }
}

describe("/ralph --story: the story's branch, on a real repository", () => {
  it("holds HEAD plus the loop's work (changed, new, deleted), not the user's untracked file nor the plan file; the user's branch, index and work tree stay", async () => {
    const dir = repo()
    writeFileSync(join(dir, "mine.txt"), "the user's own untracked file\n")
    const start = await started(dir)
    writeFileSync(join(dir, "a.txt"), "the story's edit\n")
    mkdirSync(join(dir, "src"))
    writeFileSync(join(dir, "src", "new file.ts"), "export {}\n")
    git(dir, "rm", "-q", "gone.txt")
    writeFileSync(join(dir, "plan.json"), '{"passes":true}\n')
    const statusBefore = git(dir, "status", "--porcelain")
    const made = await commitStoryBranch(
      dir,
      start,
      [".opencode/"],
      "plan.json",
      "ralph/story-s2",
      "story s2: title of s2",
    )
    expect(made).toEqual({
      committed: `ralph/story-s2 ${git(dir, "rev-parse", "--short=7", "ralph/story-s2")}`,
      files: 3,
    })
    expect(git(dir, "log", "--format=%s", "ralph/story-s2")).toBe("story s2: title of s2\nstart")
    expect(git(dir, "show", "--name-status", "--format=", "ralph/story-s2").split("\n").sort()).toEqual(
      ["D\tgone.txt", "M\ta.txt", "A\tsrc/new file.ts"].sort(),
    )
    expect(git(dir, "show", "ralph/story-s2:a.txt")).toBe("the story's edit")
    expect(git(dir, "symbolic-ref", "--short", "HEAD")).toBe("main")
    expect(git(dir, "log", "--format=%s")).toBe("start")
    expect(git(dir, "status", "--porcelain")).toBe(statusBefore)
    expect(readFileSync(join(dir, "plan.json"), "utf8")).toBe('{"passes":true}\n')
    expect(git(dir, "show", "--format=%an", "-s", "ralph/story-s2")).toBe("The User")
  })

  it("a story that changed nothing still gets its commit; an existing branch, or no commit to start from, is refused", async () => {
    const dir = repo()
    const start = await started(dir)
    expect(
      await commitStoryBranch(dir, start, [".opencode/"], "plan.json", "ralph/story-s1", "story s1: one"),
    ).toMatchObject({ files: 0 })
    expect(git(dir, "rev-parse", "ralph/story-s1^{tree}")).toBe(git(dir, "rev-parse", "main^{tree}"))
    expect(await commitStoryBranch(dir, start, [".opencode/"], "plan.json", "ralph/story-s1", "again")).toEqual({
      skipped:
        "the branch ralph/story-s1 exists already (a run of this story before?): delete it (git branch -D ralph/story-s1) or merge it (ralph-loop plan merge)",
    })
    const empty = tmp("story-branch-empty-")
    git(empty, "init", "-q")
    expect(await storyBranchProblem(empty, "ralph/story-s1")).toBe(
      "--story commits the story's work on ralph/story-s1 from HEAD, and the repository has no commit yet",
    )
    expect(await storyBranchProblem(tmp("story-branch-none-"), "ralph/story-s1")).toBe(
      "--story commits the story's work on ralph/story-s1 from HEAD, and the project is not in a git repository",
    )
  })
})
