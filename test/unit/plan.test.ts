import { describe, expect, it } from "vitest"
import {
  checksFor,
  currentStory,
  doneIn,
  markCurrentDone,
  nextStory,
  readyStories,
  storyPosition,
  type PlanState,
  type Story,
} from "../../src/plan/plan.js"

const s = (id: string, extra: Partial<Story> = {}): Story => ({
  id,
  title: id,
  acceptanceCriteria: [],
  dependsOn: [],
  checks: [],
  ...extra,
})
const plan = (stories: Story[], done: string[] = []): PlanState => ({
  file: ".opencode/prd.json",
  shape: "userStories",
  stories,
  done: done.map((id) => ({ id, iteration: 0, checks: [] })),
})

describe("the next story", () => {
  it("is the lowest priority not done, then file order; stories without a priority come last", () => {
    const stories = [s("none"), s("p2a", { priority: 2 }), s("p1", { priority: 1 }), s("p2b", { priority: 2 })]
    const order: string[] = []
    let p = plan(stories)
    for (let story = currentStory(p); story; story = currentStory(p)) {
      order.push(story.id)
      p = markCurrentDone(p, order.length, [])
    }
    expect(order).toEqual(["p1", "p2a", "p2b", "none"])
  })

  it("waits for the stories it dependsOn, even with a higher priority", () => {
    const stories = [
      s("US-001", { priority: 2 }),
      s("US-002", { priority: 1, dependsOn: ["US-001"] }),
      s("US-003", { priority: 3 }),
    ]
    expect(nextStory(stories, new Set())?.id).toBe("US-001")
    expect(nextStory(stories, new Set(["US-001"]))?.id).toBe("US-002")
    expect(nextStory(stories, new Set(["US-001", "US-002"]))?.id).toBe("US-003")
    expect(nextStory(stories, new Set(["US-001", "US-002", "US-003"]))).toBeUndefined()
  })

  it("skips the stories the file marked done", () => {
    expect(currentStory(plan([s("a"), s("b")], ["a"]))?.id).toBe("b")
  })
})

describe("the stories ready to start", () => {
  it("are those not done whose dependencies are all done, in the loop's order (priority, then file order)", () => {
    const stories = [
      s("a"),
      s("b", { priority: 2 }),
      s("c", { dependsOn: ["a", "b"], priority: 1 }),
      s("d", { priority: 1 }),
      s("e", { dependsOn: ["d"] }),
    ]
    expect(readyStories(stories, new Set()).map((x) => x.id)).toEqual(["d", "b", "a"])
    expect(readyStories(stories, new Set(["a"])).map((x) => x.id)).toEqual(["d", "b"])
    expect(readyStories(stories, new Set(["a", "b", "d"])).map((x) => x.id)).toEqual(["c", "e"])
    expect(readyStories(stories, new Set(["a", "b", "c", "d", "e"]))).toEqual([])
  })

  it("start with the story the loop would take next", () => {
    const stories = [
      s("x", { priority: 3 }),
      s("y"),
      s("z", { priority: 3, dependsOn: ["y"] }),
      s("w", { priority: 2 }),
    ]
    for (const done of [new Set<string>(), new Set(["w"]), new Set(["w", "x"]), new Set(["w", "x", "y"])])
      expect(readyStories(stories, done)[0]?.id).toBe(nextStory(stories, done)?.id)
  })
})

describe("marking a story done", () => {
  it("records the iteration and the checks, and moves the position on", () => {
    const before = plan([s("a"), s("b"), s("c")])
    expect(storyPosition(before)).toEqual({ number: 1, total: 3 })
    const after = markCurrentDone(before, 4, ["tests"])
    expect(after.done).toEqual([{ id: "a", iteration: 4, checks: ["tests"] }])
    expect(before.done).toEqual([])
    expect(storyPosition(after)).toEqual({ number: 2, total: 3 })
    expect(doneIn(after, 4)?.id).toBe("a")
    expect(doneIn(after, 5)).toBeUndefined()
  })

  it("changes nothing when every story is done", () => {
    const done = plan([s("a")], ["a"])
    expect(markCurrentDone(done, 2, [])).toBe(done)
  })
})

describe("the checks of an iteration", () => {
  it("are the loop's plus the current story's own", () => {
    const loopCheck = { name: "types", command: "tsc", kind: "typecheck" as const }
    const own = { name: "api", command: "npm test", kind: "test" as const }
    const p = plan([s("a", { checks: [own] }), s("b")])
    expect(checksFor({ checks: [loopCheck] }, p)).toEqual([loopCheck, own])
    expect(checksFor({ checks: [loopCheck] }, markCurrentDone(p, 1, []))).toEqual([loopCheck])
    expect(checksFor({ checks: [] }, undefined)).toEqual([])
  })
})
