// The parallel bench's arithmetic (bench/worktree-limit.ts, bench/worktree-timeline.ts): which
// stories shared a slot, the limit on the machine, and the split of the run's time.
import { describe, expect, it } from "vitest"
import { machineLimit, runSplit, type StoryPhases, slotsOf } from "../../bench/worktree-limit.js"
import { type LogLine, runTimeline, storyOf, storyPhases } from "../../bench/worktree-timeline.js"
import type { MockRequest } from "../harness/mock-model.js"

describe("slotsOf", () => {
  it("groups stories by their slot's worktree, in the order they began", () => {
    const slots = slotsOf(
      [
        { story: "S3", worktree: "slot-1", start: 9_000, end: 12_000 },
        { story: "S1", worktree: "slot-1", start: 100, end: 5_000 },
        { story: "S2", worktree: "slot-2", start: 200, end: 6_000 },
      ],
      2,
    )
    expect(slots).toEqual([
      { name: "slot-1", stories: ["S1", "S3"] },
      { name: "slot-2", stories: ["S2"] },
    ])
  })

  it("before slots (a worktree per story), a story takes the place of the one that ended last before it", () => {
    const slots = slotsOf(
      [
        { story: "S1", worktree: "story-s1", start: 0, end: 5_000 },
        { story: "S2", worktree: "story-s2", start: 0, end: 7_000 },
        { story: "S3", worktree: "story-s3", start: 7_100, end: 12_000 },
        { story: "S4", worktree: "story-s4", start: 5_100, end: 11_000 },
      ],
      2,
    )
    expect(slots.map((s) => s.stories)).toEqual([
      ["S1", "S4"],
      ["S2", "S3"],
    ])
  })
})

describe("machineLimit", () => {
  it("is the longest slot's model time plus one instance start per slot spread over the cores", () => {
    const slots = [
      { name: "slot-1", stories: ["S1", "S5"] },
      { name: "slot-2", stories: ["S2"] },
      { name: "slot-3", stories: ["S3"] },
      { name: "slot-4", stories: ["S4"] },
    ]
    const model = { S1: 3_000, S2: 3_000, S3: 3_000, S4: 3_000, S5: 3_000 }
    const limit = machineLimit(slots, model, [1_000, 1_400, 1_200, Number.NaN], 2)
    // ceil(4 slots / 2 cores) = 2 starts one after another, each the median of the finite starts.
    expect(limit).toEqual({ longestSlotModelMs: 6_000, instanceStartMs: 1_200, startWaves: 2, limitMs: 8_400 })
    expect(machineLimit(slots, model, [1_000], 4).limitMs).toBe(7_000)
    expect(machineLimit(slots, model, [1_000], 3).startWaves).toBe(2)
  })
})

describe("runSplit", () => {
  const phases = (story: string, ms: number): StoryPhases => ({
    story,
    worktreeAdd: ms,
    instanceStart: ms,
    slotReset: Number.NaN,
    firstRequest: ms,
    modelTime: 10 * ms,
    reportAndWait: ms,
    merge: ms,
  })

  it("adds up the phases of the slot that ended last and leaves the rest as other", () => {
    const slots = [
      { name: "slot-1", stories: ["S1", "S3"] },
      { name: "slot-2", stories: ["S2"] },
    ]
    const split = runSplit(
      slots,
      [phases("S1", 100), phases("S2", 100), { ...phases("S3", 50), worktreeAdd: Number.NaN, slotReset: 20 }],
      { S1: 2_000, S2: 2_500, S3: 4_000 },
      300,
      5_000,
    )
    expect(split?.slot).toBe("slot-1")
    expect(split?.stories).toEqual(["S1", "S3"])
    expect(split?.phases).toEqual({
      worktreeAdd: 100,
      instanceStart: 150,
      slotReset: 20,
      firstRequest: 150,
      modelTime: 1_500,
      reportAndWait: 150,
      merge: 150,
    })
    expect(split?.otherMs).toBe(5_000 - 300 - (100 + 150 + 20 + 150 + 1_500 + 150 + 150))
  })

  it("is undefined without slots", () => {
    expect(runSplit([], [], {}, 0, 1_000)).toBeUndefined()
  })
})

describe("runTimeline", () => {
  const t0 = 1_000_000
  const line = (at: number, message: string, fields: Record<string, string> = {}): LogLine => ({
    at: t0 + at,
    message,
    fields: { message, ...fields },
  })
  const step = (end: number, kind: string, at: number, of: string, extra: Record<string, string> = {}) =>
    line(end, `step ${kind}`, { at: String(t0 + at), ms: String(end - at), of, ...extra })
  const request = (at: number, endedAt: number, story: string, session: string): MockRequest =>
    ({
      kind: "main",
      lastUser: `Story ${story} of the plan .opencode/prd.json`,
      session,
      at: t0 + at,
      endedAt: t0 + endedAt,
    }) as MockRequest

  it("reads a slot's two stories: the worktree made for the first, reset for the second", () => {
    const dir = "/p/.opencode/ralph-loop/worktrees/slot-1"
    const log = [
      line(400, "creating instance", { directory: dir }),
      line(600, "created", { id: "ses_a", directory: dir }),
      step(700, "worktree-launch", 100, "slot-1"),
      line(900, "loop started", { session: "ses_a" }),
      line(4_200, "loop HTML report written", { loop: "ses_a" }),
      step(4_500, "worktree-commit", 4_300, "slot-1"),
      line(4_800, "worktree slot-1: merged"),
      step(4_900, "parallel-mark", 4_850, ""),
      step(5_300, "slot-reset", 5_000, "slot-1", { story: "S2" }),
      line(5_400, "created", { id: "ses_b", directory: dir }),
      line(5_500, "loop started", { session: "ses_b" }),
      line(8_700, "loop HTML report written", { loop: "ses_b" }),
      step(9_000, "worktree-commit", 8_800, "slot-1"),
      line(9_300, "worktree slot-1: merged"),
      step(9_400, "parallel-mark", 9_350, ""),
    ]
    const requests = [
      request(1_200, 2_700, "S1", "ses_a"),
      request(2_800, 4_100, "S1", "ses_a"),
      request(5_700, 8_600, "S2", "ses_b"),
    ]
    const t = runTimeline(log, requests, t0, t0 + 10_000, ["S1", "S2"])
    const [s1, s2] = t.stories
    expect(t.commandMs).toBe(100)
    expect(s1).toMatchObject({ story: "S1", worktree: "slot-1", launched: true, instanceStartMs: 800 })
    expect(s1?.ms).toMatchObject({ makeWorktree: 300, sessionAndInstance: 300, ownTurns: 2_900, commit: 200 })
    expect(s1?.at).toMatchObject({ ready: 700, settle: 4_300, merged: 4_800, marked: 4_900 })
    expect(s2).toMatchObject({ story: "S2", worktree: "slot-1", launched: false })
    expect(s2?.instanceStartMs).toBeNaN()
    expect(s2?.ms.slotReset).toBe(300)
    expect(s2?.at).toMatchObject({ launch: 5_000, ready: 5_300, settle: 8_800, merged: 9_300, marked: 9_400 })
    expect(storyPhases(t)[1]).toMatchObject({ firstRequest: 400, modelTime: 2_900, reportAndWait: 200, merge: 600 })
  })

  it("reads today's run of one worktree per story", () => {
    const dir = "/p/.opencode/ralph-loop/worktrees/story-s1"
    const log = [
      line(200, "creating instance", { directory: dir }),
      line(300, "created", { id: "ses_a", directory: dir }),
      step(400, "worktree-launch", 100, "story-s1"),
      step(2_500, "worktree-commit", 2_400, "story-s1"),
      line(2_600, "worktree story-s1: merged"),
    ]
    const t = runTimeline(log, [request(1_000, 2_000, "S1", "ses_a")], t0, t0 + 3_000, ["S1"])
    expect(t.stories[0]).toMatchObject({ worktree: "story-s1", launched: true, instanceStartMs: 800 })
    expect(t.stories[0]?.at.marked).toBeNaN()
  })
})

describe("storyOf", () => {
  it("names the story of a plan's request, and none of a control message", () => {
    expect(storyOf({ lastUser: "Current story: S12 (story 12)" })).toBe("S12")
    expect(storyOf({ lastUser: "[ralph-loop control] Story S1 of the plan" })).toBeUndefined()
    expect(storyOf({ lastUser: "hello" })).toBeUndefined()
  })
})
