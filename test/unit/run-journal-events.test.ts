import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { freshMemory, resumedMemory, translate, type FollowMemory } from "../../src/cli/run/journal-events.js"
import { newLoop, type Loop } from "../../src/loop/loop.js"
import { runLine } from "../../src/cli/run/lines.js"
import { runEventSchema, type RunEventBody } from "../../src/cli/run/events.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import { journalLine } from "../../src/store/journal.js"
import { journalEntrySchema, type JournalEntry } from "../../src/store/loop-schema.js"

const { activation: _activation, ...settings } = DEFAULT_SETTINGS
const T = Date.parse("2026-11-25T10:00:00Z")

function line(
  event: string,
  iteration: number,
  extra: Partial<JournalEntry> = {},
  loop: Partial<JournalEntry["loop"]> = {},
): JournalEntry {
  return {
    at: new Date(T + iteration * 1000 + event.length).toISOString(),
    event,
    loop: {
      id: "ses_a",
      task: "build it\nwith care",
      settings: { ...settings, maxIterations: 5 },
      startedAt: T,
      sessionID: "ses_a",
      lineage: [],
      iteration,
      retries: iteration - 1,
      phase: "running",
      ...loop,
    },
    ...extra,
  } as JournalEntry
}

const record = (tokens: number, cost: number, more: Record<string, unknown> = {}) => ({
  record: { decision: "restart", tokens, cost, durationMs: 1200, ...more },
})

/** Translates lines in order, as the runner does; every event must be one the schema accepts. */
function replay(
  entries: JournalEntry[],
  state?: Parameters<typeof translate>[1],
  from: FollowMemory = freshMemory(),
): { events: RunEventBody[]; end: unknown; memory: FollowMemory } {
  let memory = from
  const events: RunEventBody[] = []
  let end: unknown
  for (const entry of entries) {
    const t = translate(entry, state, memory, false)
    memory = t.memory
    events.push(...t.events)
    end ??= t.end
  }
  for (const event of events) runEventSchema.parse({ ...event, at: new Date(T).toISOString(), loop: "ses_a" })
  return { events, end, memory }
}

describe("the run's events from a loop's journal", () => {
  it("a start, each decided iteration with what it alone cost, and the end with the loop's stop reason", () => {
    const { events, end } = replay([
      line("started", 1),
      line("decided", 1, record(1000, 0.01)),
      line("restarting", 1),
      line("prompt", 2),
      line(
        "decided",
        2,
        record(2500, 0.03, {
          decision: "complete",
          checks: { errors: 0, warnings: 1, securityIssues: 0, testsFailed: 0, testsRun: 4 },
          failing: [],
        }),
      ),
      line("stopped:completed", 2, {}, { phase: "stopped", stopReason: "completed" }),
    ])
    expect(events.map((e) => e.type)).toEqual(["started", "iteration", "iteration"])
    expect(events[0]).toMatchObject({
      task: "build it",
      limits: expect.stringContaining("5"),
      session: "ses_a",
      resumed: false,
    })
    expect(events[2]).toMatchObject({
      iteration: 2,
      decision: "complete",
      tokens: 1500,
      totalTokens: 2500,
      checks: { testsRun: 4 },
    })
    expect((events[2] as { cost: number }).cost).toBeCloseTo(0.02)
    expect(end).toEqual({ kind: "stopped", reason: "completed" })
  })

  it("a line repeated by the journal's rotation counts once", () => {
    const decided = line("decided", 1, record(1000, 0.01))
    const { events } = replay([line("started", 1), decided, decided])
    expect(events.filter((e) => e.type === "iteration")).toHaveLength(1)
  })

  it("stories done, the breaker opening once, a wait with why and until when, a review's verdict, a rollback and a pause (which ends the run)", () => {
    const story = (id: string) => ({ id, title: `story ${id}`, acceptanceCriteria: [], dependsOn: [], checks: [] })
    const plan = (done: string[]) => ({
      plan: {
        file: ".opencode/prd.json",
        shape: "ralph",
        stories: [story("US-1"), story("US-2")],
        done: done.map((id) => ({ id, iteration: 1 })),
      },
    })
    const open = { breaker: { state: "OPEN", noProgress: 3, sameError: 0 } }
    const until = T + 60_000
    const { events, end } = replay(
      [
        line("started", 1, plan([]) as unknown as Partial<JournalEntry>),
        line("decided", 1, { ...record(10, 0), ...plan(["US-1"]) } as unknown as Partial<JournalEntry>),
        line("decided", 2, record(20, 0, open) as unknown as Partial<JournalEntry>),
        line("decided", 3, record(30, 0, open) as unknown as Partial<JournalEntry>),
        line("waiting:breaker", 3),
        line("review", 3),
        line("rolled-back", 3),
        line("paused", 3, {}, { phase: "paused", pauseCause: "loop" }),
      ],
      {
        phase: "waiting",
        detail: "3 iterations without progress",
        wait: { reason: "breaker", until },
        breakerReason: "no progress in 3 iterations",
        review: { reviews: 1, last: { verdict: "reject", reasons: ["tests missing"] } },
      },
    )
    expect(events.map((e) => e.type)).toEqual([
      "started",
      "iteration",
      "story-done",
      "iteration",
      "breaker-open",
      "iteration",
      "waiting",
      "review",
      "rollback",
      "paused",
    ])
    expect(events.find((e) => e.type === "story-done")).toMatchObject({
      story: "US-1",
      title: "story US-1",
      done: 1,
      total: 2,
    })
    expect(events.find((e) => e.type === "breaker-open")).toMatchObject({ reason: "no progress in 3 iterations" })
    expect(events.find((e) => e.type === "waiting")).toMatchObject({
      reason: "breaker",
      until: new Date(until).toISOString(),
      detail: "3 iterations without progress",
    })
    expect(events.find((e) => e.type === "review")).toMatchObject({ verdict: "reject", reasons: ["tests missing"] })
    expect(end).toEqual({ kind: "paused" })
  })

  it("a pause by its cause: a rollback is part of the run, a recovery at the start is resumed, any other pause ends it — and a line before the runner's request only shows", () => {
    const paused = (cause?: "person" | "interrupt" | "rollback" | "recovery" | "loop") =>
      line("paused", 2, {}, { phase: "paused", ...(cause ? { pauseCause: cause } : {}) })
    const endOf = (cause?: "person" | "interrupt" | "rollback" | "recovery" | "loop") =>
      translate(paused(cause), undefined, freshMemory(), false, true)
    expect(endOf("rollback")).toMatchObject({ events: [{ type: "paused" }] })
    expect(endOf("rollback").end).toBeUndefined()
    expect(endOf("recovery")).toMatchObject({ resume: true })
    expect(endOf("recovery").end).toBeUndefined()
    for (const cause of ["person", "interrupt", "loop", undefined] as const)
      expect(endOf(cause).end).toEqual({ kind: "paused" })
    // The boot's recovery line of a --resume, read before the runner sent its resume: shown, nothing more.
    const before = translate(paused("recovery"), undefined, freshMemory(), true, false)
    expect(before.events.map((e) => e.type)).toEqual(["paused"])
    expect(before.end).toBeUndefined()
    expect(before.resume).toBeUndefined()
    expect(translate(paused("person"), undefined, freshMemory(), true, false).end).toBeUndefined()
    // Without the cause on the line (a state file read beside it says it), the state's.
    expect(translate(paused(), { phase: "paused", pauseCause: "rollback" }, freshMemory(), false).end).toBeUndefined()
  })

  it("a pause read late, when the state has moved on (rolled back, then resumed), is the pause its line wrote", () => {
    // A rollback's pause, as the plugin writes it: its line carries its cause and detail.
    const rolling = newLoop("ses_a", "a task", settings, T)
    rolling.phase = "paused"
    rolling.pauseCause = "rollback"
    rolling.detail = "rolling back to checkpoint 0"
    const written = journalEntrySchema.parse(JSON.parse(journalLine(rolling, "paused", T)))
    expect(written.loop).toMatchObject({ pauseCause: "rollback", detail: "rolling back to checkpoint 0" })
    // Read once the loop was rolled back and resumed: the state now says nothing of that pause.
    const late = translate(written, { phase: "running" }, freshMemory(), false, true)
    expect(late.events).toEqual([{ type: "paused", detail: "rolling back to checkpoint 0" }])
    expect(late.end).toBeUndefined()
    rolling.detail = "rolled back to checkpoint 0"
    const rolled = journalEntrySchema.parse(JSON.parse(journalLine(rolling, "rolled-back", T + 1)))
    expect(translate(rolled, { phase: "running" }, freshMemory(), false, true).events).toEqual([
      { type: "rollback", detail: "rolled back to checkpoint 0" },
    ])
    // Other lines carry neither: a running loop's line has no pause, a decision no detail.
    rolling.phase = "running"
    expect(journalEntrySchema.parse(JSON.parse(journalLine(rolling, "decided", T + 2))).loop).not.toHaveProperty(
      "pauseCause",
    )
    expect(journalEntrySchema.parse(JSON.parse(journalLine(rolling, "decided", T + 2))).loop).not.toHaveProperty(
      "detail",
    )
  })

  it("a resumed run starts from the loop as saved: a story done, the breaker open and what it used before are not reported again", () => {
    const story = (id: string) => ({ id, title: `story ${id}`, acceptanceCriteria: [], dependsOn: [], checks: [] })
    const plan = {
      file: ".opencode/prd.json",
      shape: "ralph" as const,
      stories: [story("US-1"), story("US-2")],
      done: [{ id: "US-1", iteration: 1 }],
    }
    const open = { state: "OPEN" as const, noProgress: 3, sameError: 0 }
    const saved = { plan, breaker: open, review: undefined } as unknown as Pick<Loop, "plan" | "breaker" | "review">
    const { events } = replay(
      [
        line("resumed", 3),
        line("decided", 3, { ...record(400, 0.04, { breaker: open }), plan } as unknown as Partial<JournalEntry>),
      ],
      undefined,
      resumedMemory(saved, { tokens: 300, cost: 0.03 }),
    )
    expect(events.map((e) => e.type)).toEqual(["resumed", "iteration"])
    expect(events[1]).toMatchObject({ iteration: 3, tokens: 100, totalTokens: 400 })
  })

  it("renders one line per event", () => {
    const at = new Date(T).toISOString()
    expect(
      runLine({
        type: "iteration",
        at,
        loop: "ses_a",
        iteration: 3,
        decision: "restart",
        checks: { errors: 2, warnings: 0, securityIssues: 0, testsFailed: 1, testsRun: 9 },
        failing: ["test"],
        tokens: 12345,
        cost: 0.0123,
        durationMs: 4200,
        totalTokens: 20000,
        totalCost: 0.02,
      }),
    ).toBe(
      "iteration 3: restart · checks: 2 errors, 0 warnings, 1/9 tests failed (failing: test) · 12,345 tokens · $0.0123 · 4.2 s",
    )
    expect(
      runLine({
        type: "permission",
        at,
        loop: "ses_a",
        session: "ses_b",
        permission: "bash",
        patterns: ["rm -rf x"],
        reply: "reject",
      }),
    ).toBe("permission bash (rm -rf x) asked in ses_b: rejected (--auto-approve would approve it)")
    expect(
      runLine({
        type: "ended",
        at,
        loop: "ses_a",
        outcome: "completed",
        detail: null,
        exitCode: 0,
        iteration: 1,
        tokens: 120,
        cost: 0,
        report: "/p/r.md",
        evidence: null,
      }),
    ).toBe("ended: completed after 1 iteration · 120 tokens · $0.0000 · report /p/r.md (exit 0)")
  })
})

describe("the run's NDJSON events", () => {
  it("docs/run-events.schema.json is the JSON Schema of the events as the code has them (npm run schema)", () => {
    const published = JSON.parse(readFileSync(new URL("../../docs/run-events.schema.json", import.meta.url), "utf8"))
    expect(published).toEqual(z.toJSONSchema(runEventSchema))
    // An event of an unknown type, or missing a field, fails it.
    expect(runEventSchema.safeParse({ type: "ended", at: "x", loop: null }).success).toBe(false)
    expect(runEventSchema.safeParse({ type: "hello", at: "x", loop: null }).success).toBe(false)
  })
})
