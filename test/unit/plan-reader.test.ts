import { describe, expect, it } from "vitest"
import { parsePlan, planProblem } from "../../src/plan/plan-reader.js"

const common = (stories: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ project: "Shop", branchName: "ralph/shop", userStories: stories, ...extra }, null, 2)
const story = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `do ${id}`,
  acceptanceCriteria: [`${id} works`],
  priority: 1,
  passes: false,
  ...extra,
})

function problems(text: string): string[] {
  const read = parsePlan(text)
  if (read.ok) throw new Error("expected the plan to be broken")
  return read.problems
}

describe("plan files: the common userStories shape", () => {
  it("reads stories, the project, done stories, dependsOn and a story's own checks", () => {
    const read = parsePlan(
      common([
        story("US-001", { passes: true, notes: "kept", description: "As a user…" }),
        story("US-002", { priority: 2, dependsOn: ["US-001"], checks: [{ name: "api", command: "npm test -- api" }] }),
      ]),
    )
    expect(read).toMatchObject({
      ok: true,
      plan: {
        shape: "userStories",
        project: "Shop",
        doneInFile: ["US-001"],
        stories: [
          {
            id: "US-001",
            title: "do US-001",
            description: "As a user…",
            acceptanceCriteria: ["US-001 works"],
            priority: 1,
            dependsOn: [],
            checks: [],
          },
          {
            id: "US-002",
            priority: 2,
            dependsOn: ["US-001"],
            checks: [{ name: "api", command: "npm test -- api", kind: "test" }],
          },
        ],
      },
    })
  })

  it("reads `name` as the project (as other Ralph tools write it), numeric ids as text, and tolerates a missing passes", () => {
    const read = parsePlan(
      JSON.stringify({ name: "Other tool", userStories: [{ id: 7, title: "seven", acceptanceCriteria: [] }] }),
    )
    expect(read).toMatchObject({ ok: true, plan: { project: "Other tool", doneInFile: [], stories: [{ id: "7" }] } })
  })
})

describe("plan files: seed 003's stories shape", () => {
  it("reads task, stories, acceptance_criteria and completed stories", () => {
    const read = parsePlan(
      JSON.stringify({
        id: "prd-1",
        task: "Build the shop",
        status: "in_progress",
        stories: [
          { id: "S1", title: "cart", acceptance_criteria: ["adds items"], status: "completed", iteration: 2 },
          { id: "S2", title: "checkout", acceptance_criteria: ["pays"], status: "in_progress" },
        ],
      }),
    )
    expect(read).toMatchObject({
      ok: true,
      plan: {
        shape: "stories",
        project: "Build the shop",
        doneInFile: ["S1"],
        stories: [{ id: "S1", acceptanceCriteria: ["adds items"] }, { id: "S2" }],
      },
    })
  })
})

describe("a plan file that cannot be used: what was expected, and what was found", () => {
  it("a syntax error names the line and column", () => {
    expect(problems('{\n  "userStories": [\n    { "id": "US-001" "title": "x" }\n  ]\n}')).toEqual([
      "not valid JSON: line 3, column 22: CommaExpected",
    ])
  })

  it("an item without an id gets its position; one with neither title nor description, or a field of the wrong kind, is named", () => {
    expect(parsePlan(common([story("US-001"), { title: "no id", acceptanceCriteria: [] }]))).toMatchObject({
      ok: true,
      plan: { stories: [{ id: "US-001" }, { id: "2", title: "no id" }] },
    })
    const found = problems(
      common([
        story("US-001"),
        { id: "US-002", acceptanceCriteria: [] },
        { id: "US-003", title: "x", acceptanceCriteria: [1] },
      ]),
    )
    expect(found).toEqual([
      'found "userStories": 3 items, but item 2 (US-002) has neither a title nor a description',
      'item 3 (US-003) has "acceptanceCriteria" that is not a list of strings',
    ])
  })

  it("duplicate ids name both items", () => {
    expect(problems(common([story("US-001"), story("US-002"), story("US-001")]))).toEqual([
      'found "userStories": 3 items, but items 1 and 3 have the same id "US-001"',
    ])
  })

  it("an empty story list, no list at all, a list that is not one", () => {
    expect(problems(common([]))).toEqual(['found "userStories": 0 items — a plan needs at least one story'])
    expect(problems(JSON.stringify({ project: "x", goal: "y" }))).toEqual([
      'expected a list of stories — a top-level array, or "userStories", "user_stories", "stories", "tasks", "features", "items", "phases" (also one level down, as in {"prd": {…}}); found an object with the keys "project", "goal"',
    ])
    expect(problems(JSON.stringify({ tasks: "all of them" }))).toEqual([
      'found "tasks", but it is a string, not a list of stories',
    ])
    expect(problems('"just text"')).toEqual(["expected a JSON object or array of stories, found a string"])
  })

  it("dependsOn on an unknown story, or in a circle", () => {
    expect(problems(common([story("US-001", { dependsOn: ["US-009"] })]))).toEqual([
      'found "userStories": 1 item, but story US-001 depends on "US-009", which no item has as its id',
    ])
    expect(problems(common([story("A", { dependsOn: ["B"] }), story("B", { dependsOn: ["A"] }), story("C")]))).toEqual([
      'found "userStories": 3 items, but the stories A → B → A depend on each other, so none of them can start',
    ])
  })

  it("the message names the file and the first problems", () => {
    expect(planProblem(".opencode/prd.json", ["a", "b", "c", "d", "e"])).toBe(
      "the plan file .opencode/prd.json cannot be used: a; b; c; and 2 more",
    )
  })
})
