import { describe, expect, it } from "vitest"
import { parsePlan, planProblem } from "../../src/plan/plan-schema.js"

const common = (stories: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ project: "Shop", branchName: "ralph/shop", userStories: stories, ...extra }, null, 2)
const story = (id: string, extra: Record<string, unknown> = {}) => ({ id, title: `do ${id}`, acceptanceCriteria: [`${id} works`], priority: 1, passes: false, ...extra })

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
          { id: "US-001", title: "do US-001", description: "As a user…", acceptanceCriteria: ["US-001 works"], priority: 1, dependsOn: [], checks: [] },
          { id: "US-002", priority: 2, dependsOn: ["US-001"], checks: [{ name: "api", command: "npm test -- api", kind: "test" }] },
        ],
      },
    })
  })

  it("reads `name` as the project (as other Ralph tools write it), numeric ids as text, and tolerates a missing passes", () => {
    const read = parsePlan(JSON.stringify({ name: "Other tool", userStories: [{ id: 7, title: "seven", acceptanceCriteria: [] }] }))
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
    expect(read).toMatchObject({ ok: true, plan: { shape: "stories", project: "Build the shop", doneInFile: ["S1"], stories: [{ id: "S1", acceptanceCriteria: ["adds items"] }, { id: "S2" }] } })
  })
})

describe("a broken plan file: one message naming the file, the story and the field", () => {
  it("a syntax error names the line and column", () => {
    expect(problems('{\n  "userStories": [\n    { "id": "US-001" "title": "x" }\n  ]\n}')).toEqual(["not valid JSON: line 3, column 22: CommaExpected"])
  })

  it("a story without an id, or without its criteria, names the story and the field", () => {
    const found = problems(common([story("US-001"), { title: "no id", acceptanceCriteria: [] }, { id: "US-003", title: "x", acceptanceCriteria: "one" }]))
    expect(found).toEqual(['story #2: field "id": is missing', 'story US-003 (#3): field "acceptanceCriteria": must be a list of strings'])
  })

  it("duplicate ids name both stories", () => {
    expect(problems(common([story("US-001"), story("US-002"), story("US-001")]))).toEqual(['story US-001 (#3): field "id": "US-001" is used twice (also by story #1)'])
  })

  it("an empty story list, a missing list, a wrong status", () => {
    expect(problems(common([]))).toEqual(['field "userStories": has no stories'])
    expect(problems(JSON.stringify({ project: "x" }))).toEqual(['has no "userStories" list (nor seed 003\'s "stories")'])
    expect(problems(JSON.stringify({ stories: [{ id: "S1", title: "x", acceptance_criteria: [], status: "done" }] }))).toEqual([
      'story S1 (#1): field "status": must be "pending", "in_progress" or "completed"',
    ])
  })

  it("dependsOn on an unknown story, or in a circle", () => {
    expect(problems(common([story("US-001", { dependsOn: ["US-009"] })]))).toEqual(['story US-001: field "dependsOn": no story has the id "US-009"'])
    expect(problems(common([story("A", { dependsOn: ["B"] }), story("B", { dependsOn: ["A"] }), story("C")]))).toEqual([
      'story A: field "dependsOn": the stories A → B → A wait for each other, so none of them can start',
    ])
  })

  it("the message names the file and the first problems", () => {
    expect(planProblem(".opencode/prd.json", ["a", "b", "c", "d", "e"])).toBe("the plan file .opencode/prd.json is broken: a; b; c; and 2 more")
  })
})
