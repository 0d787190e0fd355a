// /ralph --prd --parallel N: which stories start, in which order, and when a run is over.
import { describe, expect, it } from "vitest"
import {
  madeByRun,
  parallelRunSchema,
  runOver,
  storiesToStart,
  storyTask,
  storyWorktreeName,
  type ParallelRun,
} from "../../src/worktrees/parallel.js"
import type { Story } from "../../src/plan/plan.js"

const story = (id: string, dependsOn: string[] = [], priority?: number): Story => ({
  id,
  title: `title ${id}`,
  acceptanceCriteria: [`${id} works`],
  dependsOn,
  checks: [],
  ...(priority !== undefined ? { priority } : {}),
})
const run = (over: Partial<ParallelRun> = {}, done: string[] = []): ParallelRun => ({
  plan: {
    file: "prd.json",
    shape: "userStories",
    stories: [story("A"), story("B"), story("C", ["A"]), story("D", [], 1)],
    done: done.map((id) => ({ id, iteration: 1, checks: [] })),
  },
  parallel: 2,
  fromSession: "ses_x",
  startedAt: 0,
  running: [],
  failed: [],
  ...over,
})
const ids = (stories: Story[]) => stories.map((s) => s.id)

describe("stories a parallel run starts", () => {
  it("the ready ones by the plan's order, up to N and the project's limit", () => {
    expect(ids(storiesToStart(run(), 4))).toEqual(["D", "A"])
    expect(ids(storiesToStart(run({ parallel: 3 }), 4))).toEqual(["D", "A", "B"])
    expect(ids(storiesToStart(run({ parallel: 3 }), 1))).toEqual(["D"])
  })

  it("a story waits for its dependencies to be done; running and failed ones do not start again", () => {
    expect(
      ids(
        storiesToStart(
          run({
            parallel: 4,
            running: [
              { story: "D", worktree: "story-d" },
              { story: "A", worktree: "story-a" },
            ],
          }),
          4,
        ),
      ),
    ).toEqual(["B"])
    expect(ids(storiesToStart(run({ parallel: 4 }, ["A", "D"]), 4))).toEqual(["B", "C"])
    expect(
      ids(storiesToStart(run({ parallel: 4, failed: [{ story: "A", reason: "conflict" }] }, ["D", "B"]), 4)),
    ).toEqual([])
  })

  it("is over when nothing runs and nothing can start", () => {
    expect(runOver(run({}, ["A", "B", "C", "D"]))).toBe(true)
    expect(runOver(run({ failed: [{ story: "A", reason: "conflict" }] }, ["B", "D"]))).toBe(true)
    expect(runOver(run({ running: [{ story: "A", worktree: "story-a" }] }, ["B", "D"]))).toBe(false)
    expect(runOver(run({}, ["A"]))).toBe(false)
  })

  it("tells a story's loop its story and to leave the plan file alone; names its worktree", () => {
    const text = storyTask(run().plan, story("C", ["A"]))
    expect(text).toContain("Story C of the plan prd.json: title C")
    expect(text).toContain("- C works")
    expect(text).toContain("do not edit prd.json")
    expect(storyWorktreeName("US-001", run().plan.stories)).toBe("story-us-001")
    expect(storyWorktreeName("1.2 / x", run().plan.stories)).toMatch(/^story-1\.2-x--[0-9a-f]{8}$/)
  })
})

describe("the run's record (parallel.json)", () => {
  it("keeps stories whose ids are Object.prototype's names (`__proto__`, `constructor`) as any other", () => {
    // Kept as objects keyed by story id, `__proto__` was dropped on assignment and `constructor` made the record fail its schema.
    const saved = run({
      running: [{ story: "__proto__", worktree: "story-proto" }],
      failed: [{ story: "constructor", reason: "conflict" }],
    })
    const read = parallelRunSchema.parse(JSON.parse(JSON.stringify(saved)))
    expect(read.running).toEqual([{ story: "__proto__", worktree: "story-proto" }])
    expect(read.failed).toEqual([{ story: "constructor", reason: "conflict" }])
    expect(
      storiesToStart(
        { ...read, plan: { ...read.plan, stories: [story("__proto__"), story("constructor"), story("B")] } },
        4,
      ).map((s) => s.id),
    ).toEqual(["B"])
  })

  it("reads a record written before, with objects keyed by story id", () => {
    const older = {
      ...run(),
      running: JSON.parse('{"A": "story-a", "constructor": "story-constructor", "__proto__": "story-proto"}'),
      failed: { B: "conflict" },
    }
    expect(parallelRunSchema.parse(JSON.parse(JSON.stringify(older)))).toMatchObject({
      running: [
        { story: "A", worktree: "story-a" },
        { story: "constructor", worktree: "story-constructor" },
        { story: "__proto__", worktree: "story-proto" },
      ],
      failed: [{ story: "B", reason: "conflict" }],
    })
  })

  it("takes a worktree as its own only when this run made it", () => {
    expect(madeByRun({ id: "r2", startedAt: 100 }, { run: "r2", createdAt: 150 })).toBe(true)
    expect(madeByRun({ id: "r2", startedAt: 100 }, { run: "r1", createdAt: 150 })).toBe(false)
    expect(madeByRun({ id: "r2", startedAt: 100 }, { createdAt: 150 })).toBe(false)
    // A run recorded before runs had ids: its worktrees are those made since it started.
    expect(madeByRun({ startedAt: 100 }, { createdAt: 150 })).toBe(true)
    expect(madeByRun({ startedAt: 100 }, { createdAt: 50 })).toBe(false)
  })
})
