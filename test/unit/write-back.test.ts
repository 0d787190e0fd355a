import { describe, expect, it } from "vitest"
import { parsePlan } from "../../src/plan/plan-reader.js"
import type { PlanState } from "../../src/plan/plan.js"
import { writeBack } from "../../src/plan/write-back.js"

function stateOf(text: string, done: Array<{ id: string; iteration: number; checks?: string[] }>): PlanState {
  const read = parsePlan(text)
  if (!read.ok) throw new Error(read.problems.join("; "))
  return {
    file: "prd.json",
    shape: read.plan.shape,
    stories: read.plan.stories,
    done: done.map((d) => ({ checks: [], ...d })),
  }
}

const written = (text: string, state: PlanState) => {
  const result = writeBack(text, state)
  if ("problem" in result) throw new Error(result.problem)
  return result
}

const COMMON = `{
    "project": "Shop",
    "branchName": "ralph/shop",
    "userStories": [
        {
            "id": "US-001",
            "title": "cart",
            "acceptanceCriteria": ["adds items"],
            "priority": 1,
            "passes": false,
            "estimate": "2h"
        },
        {
            "id": "US-002",
            "title": "checkout",
            "acceptanceCriteria": ["pays"],
            "priority": 2,
            "passes": true,
            "notes": "the model said so"
        }
    ],
    "owner": { "team": "web" }
}
`

describe("write-back, common shape", () => {
  it("marks the story done with passes and a note, keeps every other byte, and sets back a story the plugin did not mark", () => {
    const { text, changed } = written(COMMON, stateOf(COMMON, [{ id: "US-001", iteration: 3, checks: ["tests"] }]))
    expect(changed).toEqual(["US-001", "US-002"])
    expect(text).toBe(
      COMMON.replace(
        '"passes": false,\n            "estimate": "2h"',
        '"passes": true,\n            "estimate": "2h",\n            "notes": "Verified by ralph-loop in iteration 3 (checks passed: tests)"',
      ).replace(
        '"passes": true,\n            "notes": "the model said so"',
        '"passes": false,\n            "notes": "the model said so"',
      ),
    )
    const after = JSON.parse(text)
    expect(after.owner).toEqual({ team: "web" })
    expect(after.userStories[0].estimate).toBe("2h")
  })

  it("writes nothing when the file already says what the plugin recorded", () => {
    const once = written(
      COMMON,
      stateOf(COMMON, [
        { id: "US-001", iteration: 3 },
        { id: "US-002", iteration: 4 },
      ]),
    ).text
    const again = written(
      once,
      stateOf(COMMON, [
        { id: "US-001", iteration: 3 },
        { id: "US-002", iteration: 4 },
      ]),
    )
    expect(again).toEqual({ text: once, changed: [] })
  })

  it("keeps the user's notes, tabs, CRLF line ends and comments", () => {
    const tabbed =
      '{\r\n\t// the plan\r\n\t"userStories": [\r\n\t\t{ "id": "A", "title": "a", "acceptanceCriteria": [], "passes": false }\r\n\t]\r\n}\r\n'
    const { text } = written(tabbed, stateOf(tabbed, [{ id: "A", iteration: 1 }]))
    expect(text).toContain("\t// the plan\r\n")
    expect(text).toContain('"passes": true')
    expect(text).not.toMatch(/[^\r]\n/)
  })

  it("says why when the file is no longer JSON", () => {
    const state = stateOf(COMMON, [{ id: "US-001", iteration: 1 }])
    expect(writeBack('{ "userStories": [', state)).toEqual({
      problem: "is no longer valid JSON, so the plugin's record of the stories could not be written into it",
    })
  })
})

const SEED = `{
  "id": "prd-1",
  "task": "Build the shop",
  "stories": [
    { "id": "S1", "title": "cart", "acceptance_criteria": ["adds items"], "status": "in_progress" },
    { "id": "S2", "title": "checkout", "acceptance_criteria": ["pays"], "status": "completed", "iteration": 9 }
  ]
}`

describe("write-back, seed 003's shape", () => {
  it("sets status completed and the iteration; a story completed by the model goes back to pending", () => {
    const { text } = written(SEED, stateOf(SEED, [{ id: "S1", iteration: 2 }]))
    const after = JSON.parse(text)
    expect(after.stories[0]).toEqual({
      id: "S1",
      title: "cart",
      acceptance_criteria: ["adds items"],
      status: "completed",
      iteration: 2,
    })
    expect(after.stories[1]).toEqual({ id: "S2", title: "checkout", acceptance_criteria: ["pays"], status: "pending" })
    expect(after.id).toBe("prd-1")
    expect(text.startsWith('{\n  "id": "prd-1",\n  "task": "Build the shop",')).toBe(true)
  })

  it("a story done before the loop (iteration 0) keeps its own iteration", () => {
    const state = stateOf(SEED, [{ id: "S2", iteration: 0 }])
    const { text, changed } = written(SEED, state)
    expect(changed).toEqual([])
    expect(text).toBe(SEED)
  })

  it("the plan's own status (seed 003) is in_progress while stories are left, completed when none is; the story worked on is in_progress", () => {
    const plan =
      '{\n  "task": "Shop",\n  "status": "pending",\n  "stories": [\n    { "id": "S1", "title": "cart", "status": "pending" },\n    { "id": "S2", "title": "checkout", "status": "pending" }\n  ]\n}\n'
    const first = written(plan, stateOf(plan, [])).text
    expect(JSON.parse(first)).toMatchObject({
      status: "in_progress",
      stories: [{ status: "in_progress" }, { status: "pending" }],
    })
    const second = written(first, stateOf(plan, [{ id: "S1", iteration: 1 }])).text
    expect(JSON.parse(second)).toMatchObject({
      status: "in_progress",
      stories: [{ status: "completed", iteration: 1 }, { status: "in_progress" }],
    })
    const last = written(
      second,
      stateOf(plan, [
        { id: "S1", iteration: 1 },
        { id: "S2", iteration: 2 },
      ]),
    ).text
    expect(JSON.parse(last)).toMatchObject({
      status: "completed",
      stories: [{ status: "completed" }, { status: "completed", iteration: 2 }],
    })
    expect(
      last.startsWith(
        '{\n  "task": "Shop",\n  "status": "completed",\n  "stories": [\n    { "id": "S1", "title": "cart", "status": "completed", "iteration": 1 },',
      ),
    ).toBe(true)
  })

  it("plan merge (markCurrent: false) marks the merged stories done and puts no story in progress; the plan's status still follows what is left", () => {
    const plan =
      '{\n  "status": "pending",\n  "stories": [\n    { "id": "S1", "title": "cart", "status": "pending" },\n    { "id": "S2", "title": "checkout", "status": "pending" }\n  ]\n}\n'
    const merged = writeBack(plan, stateOf(plan, [{ id: "S1", iteration: 0 }]), { markCurrent: false })
    if ("problem" in merged) throw new Error(merged.problem)
    expect(JSON.parse(merged.text)).toEqual({
      status: "in_progress",
      stories: [
        { id: "S1", title: "cart", status: "completed" },
        { id: "S2", title: "checkout", status: "pending" },
      ],
    })
    const all = writeBack(
      merged.text,
      stateOf(plan, [
        { id: "S1", iteration: 0 },
        { id: "S2", iteration: 0 },
      ]),
      { markCurrent: false },
    )
    if ("problem" in all) throw new Error(all.problem)
    expect(JSON.parse(all.text)).toMatchObject({
      status: "completed",
      stories: [{ status: "completed" }, { status: "completed" }],
    })
  })
})
