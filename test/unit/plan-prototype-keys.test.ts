// Strings from a plan file that are also names on Object.prototype (`__proto__`, `constructor`,
// `toString`) are read as any other text: never looked up on the prototype. Found in use: a story
// with `"priority": "__proto__"` got Object.prototype as its priority, the loop's state then failed
// the plugin's own schema, and the loop could no longer be read.
import { describe, expect, it } from "vitest"
import type { PlanState } from "../../src/plan/plan.js"
import { parsePlan } from "../../src/plan/plan-reader.js"
import { writeBack } from "../../src/plan/write-back.js"
import { stateOf } from "../../src/loop/loop.js"
import { storedLoopSchema } from "../../src/store/loop-schema.js"
import { loop } from "./fixtures.js"

const file = (stories: unknown[]) => JSON.stringify({ userStories: stories }, null, 2)
const item = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `do ${id}`,
  acceptanceCriteria: [],
  passes: false,
  ...extra,
})

/** The plan a loop would start on, through a state file and back, as after a restart. */
function savedAndRead(source: string) {
  const read = parsePlan(source)
  if (!read.ok) throw new Error(read.problems.join("; "))
  const plan: PlanState = { file: ".opencode/prd.json", shape: read.plan.shape, stories: read.plan.stories, done: [] }
  return storedLoopSchema.safeParse(JSON.parse(JSON.stringify(stateOf(loop({ plan })))))
}

describe("prototype names in a plan file", () => {
  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])(
    "a priority %j is not a priority word: the file is refused, naming it",
    (word) => {
      const read = parsePlan(file([item("US-1", { priority: word })]))
      expect(read.ok).toBe(false)
      if (!read.ok)
        expect(read.problems[0]).toContain(
          `item 1 (US-1) has "priority" that is not a number, "high", "medium", "low" (or critical, lowest) or P0–P4 (it is ${JSON.stringify(word)})`,
        )
    },
  )

  it("stories with such ids, depending on each other, are read and survive the loop's state file", () => {
    const source = file([
      item("__proto__", { priority: "high" }),
      item("constructor", { dependsOn: ["__proto__"] }),
      item("toString", { priority: 2 }),
    ])
    const read = parsePlan(source)
    expect(read).toMatchObject({
      ok: true,
      plan: {
        stories: [
          { id: "__proto__", priority: 1 },
          { id: "constructor", dependsOn: ["__proto__"] },
          { id: "toString", priority: 2 },
        ],
      },
    })
    const saved = savedAndRead(source)
    expect(saved.success).toBe(true)
    expect(saved.data?.plan?.stories.map((s) => s.id)).toEqual(["__proto__", "constructor", "toString"])
  })

  it("a `__proto__` key in a file with comments is a key, not the prototype of what holds it", () => {
    // jsonc-parser's own parse assigns keys, so `__proto__` became the object's prototype: the
    // stories were read as a top-level "userStories", which the write-back could not find in the text.
    const source = `// the plan\n{ "__proto__": { "userStories": [{ "id": "A", "title": "a", "passes": false }] } }\n`
    const read = parsePlan(source)
    expect(read).toMatchObject({ ok: true, plan: { shape: "__proto__.userStories", stories: [{ id: "A" }] } })
    const written = writeBack(source, {
      file: "prd.json",
      shape: "__proto__.userStories",
      stories: read.ok ? read.plan.stories : [],
      done: [{ id: "A", iteration: 1, checks: [] }],
    })
    expect(written).toMatchObject({
      text: expect.stringContaining(
        '{ "__proto__": { "userStories": [{ "id": "A", "title": "a", "passes": true, "notes"',
      ),
      changed: ["A"],
    })
    const withComments = `// the plan\n{ "userStories": [{ "id": "__proto__", "title": "a", "passes": false, "__proto__": { "passes": true } },] }\n`
    expect(parsePlan(withComments)).toMatchObject({
      ok: true,
      plan: { stories: [{ id: "__proto__" }], doneInFile: [] },
    })
  })

  it("the write-back marks such a story done in the file", () => {
    const source = file([item("__proto__"), item("constructor")])
    const read = parsePlan(source)
    if (!read.ok) throw new Error("unreadable")
    const plan: PlanState = {
      file: "prd.json",
      shape: "userStories",
      stories: read.plan.stories,
      done: [{ id: "constructor", iteration: 2, checks: [] }],
    }
    const written = writeBack(source, plan)
    expect(written).toMatchObject({ changed: ["constructor"] })
    expect(
      JSON.parse((written as { text: string }).text).userStories.map((s: { passes: boolean }) => s.passes),
    ).toEqual([false, true])
  })
})
