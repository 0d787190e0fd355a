// OpenCode calls the event hook for every event of every session. Handling an observed event — and
// the first step of a job it starts, which runs in the same call — must cost the same whether the
// plugin knows 10 sessions and loops or 10,000: every question on that path is a lookup by session
// id. Counted, not timed: every element an array, Map or Set hands out while the events are
// handled (their iterators, and the array methods that walk elements) is one visit.
import { describe, expect, it } from "vitest"
import type { JobHost } from "../../src/engine/runner.js"
import { LoopRunner } from "../../src/engine/runner.js"
import type { Job } from "../../src/effects/kernel.js"
import { ControlTurns } from "../../src/engine/control-turns.js"
import { DEFAULT_SETTINGS, type Settings } from "../../src/config/schema.js"
import type { RalphContext } from "../../src/engine/context.js"
import { ContinuationWatch } from "../../src/continuations/watch.js"
import { eventHook } from "../../src/hooks/event.js"
import { RefusedByRalph, toolGuardHook } from "../../src/hooks/tool-guard.js"
import { newLoop, type Loop } from "../../src/loop/loop.js"
import { LoopManager } from "../../src/loop/manager.js"
import type { RuntimeEvent } from "../../src/host/events.js"
import { PlanRequests } from "../../src/plan/requests.js"
import { NO_REVIEWS } from "../../src/loop/review-state.js"

type Counted = (...args: unknown[]) => number

/** Runs `fn` with every element visit counted; returns the count (the builtins are restored, also on a throw). */
function visitsDuring(fn: () => void): number {
  let visits = 0
  const restore: Array<() => void> = []
  const wrap = (target: object, key: string, count: (self: never, result: unknown) => number) => {
    const descriptor = Object.getOwnPropertyDescriptor(target, key)
    const original = descriptor?.value as Counted | undefined
    if (!descriptor || typeof original !== "function") throw new Error(`nothing to count at ${key}`)
    Object.defineProperty(target, key, {
      ...descriptor,
      value: function (this: never, ...args: unknown[]) {
        const result = original.apply(this, args)
        visits += count(this, result)
        return result
      },
    })
    restore.push(() => Object.defineProperty(target, key, descriptor))
  }
  const arrayIterator = Object.getPrototypeOf([][Symbol.iterator]()) as object
  const mapIterator = Object.getPrototypeOf(new Map().values()) as object
  const setIterator = Object.getPrototypeOf(new Set().values()) as object
  for (const iterator of [arrayIterator, mapIterator, setIterator]) wrap(iterator, "next", () => 1)
  const walks = [
    "some",
    "every",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "filter",
    "map",
    "flatMap",
    "forEach",
    "reduce",
    "reduceRight",
    "includes",
    "indexOf",
    "lastIndexOf",
    "join",
    "slice",
    "concat",
  ]
  for (const name of walks) wrap(Array.prototype, name, (self: unknown[]) => self.length)
  wrap(Map.prototype, "forEach", (self: Map<unknown, unknown>) => self.size)
  wrap(Set.prototype, "forEach", (self: Set<unknown>) => self.size)
  for (const name of ["keys", "values", "entries"]) wrap(Object, name, (_self, result) => (result as unknown[]).length)
  try {
    fn()
  } finally {
    for (const undo of restore.reverse()) undo()
  }
  return visits
}

const settings: Settings = { ...DEFAULT_SETTINGS, activation: "always", settleMs: 0, autoContinue: true }
const { activation: _activation, ...loopSettings } = settings
const status = (sessionID: string, type: string): RuntimeEvent => ({
  type: "session.status",
  properties: { sessionID, status: { type } },
})

/** The event hook of an instance that knows `n` sessions besides the named ones the test speaks of. */
function instance(n: number) {
  let freshReads = 0
  const manager = new LoopManager()
  const continuations = new ContinuationWatch()
  const plans = new PlanRequests()
  const controlTurns = new ControlTurns()
  const started: string[] = []
  // Like the Interpreter, a job's first step runs in the call that starts it (here it stops there).
  const host: JobHost = {
    start: (label: string, job: Job) => {
      started.push(label)
      job.next()
    },
    // The settle passes at once here.
    startAfter: (_ms: number, label: string, job: () => Job) => host.start(label, job()),
    runNow: async () => undefined,
    persisted: async () => undefined,
    reached: () => undefined,
    cancelTimer: () => undefined,
    dispose: () => undefined,
  }
  const runner = new LoopRunner(host, {
    directory: "/nowhere",
    manager,
    plans,
    continuations,
    now: () => 0,
    // The loop's jobs' fresh settings, which stat the settings files: counted.
    settings: () => {
      freshReads += 1
      return settings
    },
  })
  const noop = () => undefined
  const ctx = {
    directory: "/nowhere",
    manager,
    plans,
    continuations,
    controlTurns,
    runner,
    newSessions: new Set<string>(),
    settings: { current: settings },
    api: { toast: noop, log: noop },
    now: () => 0,
  }
  const hook = eventHook(ctx as unknown as RalphContext)
  const guard = toolGuardHook(ctx as unknown as RalphContext)
  const send = (event: RuntimeEvent) => void hook({ event } as Parameters<typeof hook>[0])
  const created = (sessionID: string) =>
    send({ type: "session.created", properties: { sessionID, info: { id: sessionID } } })

  /** A loop started in `first`, moved on to `now`, its review open in `review`, its next restart's session `next` created. */
  const travelled = (first: string, now: string, review: string, next?: string): Loop => {
    created(first)
    const { loop } = manager.start(first, "task", loopSettings, 0)
    manager.beginRestart(loop, { fresh: true })
    manager.sessionCreated(loop, now)
    manager.nextIteration(loop, now, 1)
    manager.reviewSession(loop, review)
    if (next !== undefined) {
      manager.beginRestart(loop, { fresh: true })
      manager.sessionCreated(loop, next)
    }
    return loop
  }
  /** A loop as OpenCode's restart finds it on disk: an earlier session, a review and a restart's session open. */
  const saved = (id: string, before: string, review: string, next: string): Loop => ({
    ...newLoop(id, "task", loopSettings, 0),
    lineage: [before],
    review: { ...NO_REVIEWS, session: review },
    restart: { fresh: true, sessionID: next },
  })

  const adopted: Loop[] = []
  for (let i = 0; i < n; i += 1) {
    const id = `ses_known${String(i).padStart(5, "0")}`
    created(id)
    if (i % 4 === 0) travelled(`${id}_first`, id, `${id}_review`)
    if (i % 4 === 1) travelled(`${id}_first`, id, `${id}_review`, `${id}_next`)
    if (i % 4 === 2) adopted.push(saved(id, `${id}_before`, `${id}_review`, `${id}_next`))
    if (i % 8 === 3) plans.ask(id, "prd.json", undefined)
    if (i % 8 === 7) controlTurns.commandRewritten(id)
  }
  // The sessions the stream is about, known the same way in every instance.
  const loop = travelled("ses_loop_first", "ses_loop", "ses_loop_review")
  travelled("ses_moving_first", "ses_moving", "ses_moving_review", "ses_moving_next")
  adopted.push(saved("ses_back", "ses_back_before", "ses_back_review", "ses_back_next"))
  manager.adoptAll(adopted, false)
  created("ses_plain")
  created("ses_plan")
  plans.ask("ses_plan", "prd.json", undefined)
  manager.promptSent(loop, 0)
  /** A tool call as OpenCode makes it: whether the guard refused it. */
  const tool = async (name: string, args: Record<string, unknown>): Promise<boolean> =>
    guard({ tool: name, sessionID: "ses_loop", callID: "call" }, { args }).then(
      () => false,
      (error: unknown) => {
        if (error instanceof RefusedByRalph) return true
        throw error
      },
    )
  return { manager, send, started, tool, freshReads: () => freshReads }
}

const SESSIONS = [
  "ses_plain", // no loop
  "ses_unknown", // never seen
  "ses_plan", // a /ralph-plan request
  "ses_loop", // a loop's session
  "ses_loop_first", // a loop's earlier session
  "ses_loop_review", // a loop's review session
  "ses_moving_next", // the session a loop's restart created
  "ses_back", // a loop taken back from disk
  "ses_back_before",
  "ses_back_review",
  "ses_back_next",
]

/** A turn in each session (with a question, an error and a compaction), a child session created and deleted; then two loops' sessions are deleted. */
function stream(): RuntimeEvent[] {
  const events: RuntimeEvent[] = []
  for (const sessionID of SESSIONS) {
    events.push(
      status(sessionID, "busy"),
      { type: "question.asked", properties: { sessionID, id: `que_${sessionID}` } },
      { type: "question.replied", properties: { sessionID, requestID: `que_${sessionID}` } },
      { type: "session.error", properties: { sessionID, error: { name: "UnknownError", data: { message: "boom" } } } },
      { type: "session.compacted", properties: { sessionID } },
      status(sessionID, "busy"),
      status(sessionID, "idle"),
      { type: "session.idle", properties: { sessionID } },
      {
        type: "session.created",
        properties: { sessionID: `${sessionID}_child`, info: { id: `${sessionID}_child`, parentID: sessionID } },
      },
      { type: "session.deleted", properties: { sessionID: `${sessionID}_child`, info: { id: `${sessionID}_child` } } },
    )
  }
  for (const sessionID of ["ses_loop", "ses_back"])
    events.push({ type: "session.deleted", properties: { sessionID, info: { id: sessionID } } })
  return events
}

describe("the event path's work does not grow with what the plugin knows", () => {
  it("the count sees a scan of the loops", () => {
    const { manager } = instance(1_000)
    expect(visitsDuring(() => manager.all())).toBeGreaterThanOrEqual(manager.size)
    expect(manager.size).toBeGreaterThan(750)
  })

  it("the same visits for 10 and for 10,000 known sessions", () => {
    const work = (n: number) => {
      const { manager, send, started } = instance(n)
      const loops = manager.size
      const events = stream()
      const visits = visitsDuring(() => {
        for (const event of events) send(event)
      })
      return { visits, loops, left: manager.size, started }
    }
    const few = work(10)
    const many = work(10_000)
    expect(many.loops - few.loops).toBe(7_500 - 8) // the instances differ as said
    // The stream does the same in both: the turn ends of the two running loops, the plan's check,
    // a look by the continuations at the sessions no loop lives in (the one a restart created
    // included: that job's first step finds the loop); the deleted sessions end their loops.
    expect(many.started).toEqual(few.started)
    expect(few.started).toEqual([
      "continuations of ses_plain",
      "continuations of ses_unknown",
      "continuations of ses_plan",
      "plan check in ses_plan",
      "turn end of ses_loop_first",
      "continuations of ses_moving_next",
      "turn end of ses_back",
      "continuations of ses_back_next",
    ])
    expect(few.loops - few.left).toBe(2)
    expect(many.visits).toBe(few.visits)
  })
})

describe("the event path never reads the settings files", () => {
  it("a turn end of a session without a loop schedules its continuations from the settings in memory", () => {
    const { send, started, freshReads } = instance(0)
    send(status("ses_plain", "busy"))
    send(status("ses_plain", "idle"))
    expect(started).toEqual(["continuations of ses_plain"])
    expect(freshReads()).toBe(0)
  })
})

describe("the tool guard's work does not grow with the loops either", () => {
  // Every tool call passes the guard: the loops' own folders are looked up by name, never listed.
  const calls: Array<[string, Record<string, unknown>]> = [
    ["write", { filePath: "src/a.ts" }],
    ["write", { filePath: ".opencode/sessions/ses_loop_first/ralph_summary.md" }],
    ["edit", { filePath: "/nowhere/.opencode/sessions/ses_back_before/x.md" }],
    ["write", { filePath: ".opencode/sessions/ses_plain/x.md" }],
    ["write", { filePath: ".opencode/ralph-loop/loops/x.json" }],
    ["bash", { command: "rm -rf .opencode/sessions/ses_moving_first dist" }],
    ["bash", { command: "npm test" }],
    ["read", { filePath: ".opencode/sessions/ses_loop_first/ralph_summary.md" }],
  ]

  it("the same visits for 10 and for 10,000 known sessions, and the same refusals", async () => {
    const work = async (n: number) => {
      const { tool, manager } = instance(n)
      let refused: boolean[] = []
      // The hook is async but does its work in the call: each call's visits are counted as it is made.
      let pending: Array<Promise<boolean>> = []
      const visits = visitsDuring(() => {
        pending = calls.map(([name, args]) => tool(name, args))
      })
      refused = await Promise.all(pending)
      return { visits, refused, loops: manager.size }
    }
    const few = await work(10)
    const many = await work(10_000)
    expect(many.loops).toBeGreaterThan(few.loops + 7_000)
    expect(few.refused).toEqual([false, true, true, false, true, true, false, false])
    expect(many.refused).toEqual(few.refused)
    expect(many.visits).toBe(few.visits)
  })
})
