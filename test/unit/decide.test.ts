import { describe, expect, it } from "vitest"
import { decide, type Facts } from "../../src/loop/decide.js"
import { snapshotOf } from "../../src/checks/diagnostics.js"
import type { Turn } from "../../src/loop/turn.js"
import { emptyTurnEvents } from "../../src/loop/turn-events.js"
import { loop } from "./fixtures.js"

let n = 0
const turn = (text: string, extra: Partial<Turn> = {}): Turn => ({
  lastAssistantID: `msg_${++n}`,
  texts: [text],
  ...extra,
})
const facts = (t: Turn, sample: Partial<Facts["sample"]> = {}, now = 1_000): Facts => ({
  turn: t,
  sample: { workTree: `tree-${n}`, todosCompleted: 0, openTodos: [], sessionID: "ses_a", ...sample },
  now,
})
const decision = (l: ReturnType<typeof loop>, t: Turn, sample: Partial<Facts["sample"]> = {}, now?: number) =>
  decide(l, facts(t, sample, now)).decision

describe("decide: the seed-000 rules", () => {
  it("completes on the promise, also on the last allowed iteration", () => {
    expect(decision(loop(), turn("<promise>DONE</promise>"))).toMatchObject({ type: "complete" })
    expect(decision(loop({ retries: 3, iteration: 4 }), turn("<promise>DONE</promise>"))).toMatchObject({
      type: "complete",
    })
  })

  it("completes on one of the completionMarkers as on the promise", () => {
    const marked = loop({}, { completionMarkers: ["<jikime:done />"] })
    expect(decision(marked, turn("all fixed <jikime:done />"))).toMatchObject({ type: "complete" })
    expect(decision(loop(), turn("all fixed <jikime:done />"))).toMatchObject({ type: "restart" })
  })

  it("restarts while retries are left, stops when they are used up", () => {
    expect(decision(loop({ retries: 2 }), turn("working"))).toEqual({ type: "restart", fresh: false })
    expect(decision(loop({ retries: 3 }), turn("working"))).toMatchObject({ type: "stop", reason: "retries-exhausted" })
    expect(decision(loop({}, { maxRetries: 0 }), turn("working"))).toMatchObject({
      type: "stop",
      reason: "retries-exhausted",
    })
  })

  it("stops at maxIterations when that comes before maxRetries", () => {
    const l = loop({ iteration: 2, retries: 1 }, { maxRetries: 10, maxIterations: 2 })
    expect(decision(l, turn("working"))).toMatchObject({ type: "stop", reason: "max-iterations" })
  })

  it("reports instead of restarting when autoRestart is off", () => {
    expect(decision(loop({}, { autoRestart: false }), turn("working"))).toEqual({ type: "report-missing-promise" })
  })

  it("ignores a turn it has already decided on", () => {
    expect(decision(loop({ lastDecidedMessageID: "msg_x" }), { lastAssistantID: "msg_x", texts: ["w"] })).toMatchObject(
      { type: "ignore" },
    )
  })
})

describe("decide: the class of the idle", () => {
  it("user abort (Esc, or a turn cut off) → pause, never a prompt", () => {
    expect(
      decision(loop(), turn("half", { error: { name: "MessageAbortedError", message: "Aborted" } })),
    ).toMatchObject({ type: "pause" })
    expect(decision(loop(), turn("half", { interrupted: true }))).toMatchObject({ type: "pause" })
  })

  it("auth error → stop and say why", () => {
    const d = decision(
      loop(),
      turn("", { error: { name: "APIError", message: "Incorrect API key provided", statusCode: 401 } }),
    )
    expect(d).toMatchObject({ type: "stop", reason: "auth-error" })
    expect(decision(loop(), turn("", { error: { name: "ProviderAuthError", message: "no key" } }))).toMatchObject({
      reason: "auth-error",
    })
  })

  it("rate limit → wait for the provider's reset (a usage limit), without using an iteration", () => {
    const l = loop()
    const t = turn("", {
      error: { name: "APIError", message: "quota", statusCode: 429, headers: { "retry-after": "20" } },
    })
    const { decision: d, update } = decide(l, facts(t, {}, 5_000))
    expect(d).toMatchObject({ type: "wait", wait: { reason: "usage-limit", until: 25_000, then: "resume" } })
    expect(update.backoffs).toBe(1)
  })

  it("overload without a reset time → exponential back-off, up to usageLimitMaxWaitHours", () => {
    const t = () => turn("", { error: { name: "APIError", message: "Overloaded", statusCode: 529 } })
    expect(decide(loop({ backoffs: 0 }), facts(t(), {}, 0)).decision).toMatchObject({ wait: { until: 30_000 } })
    expect(decide(loop({ backoffs: 3 }), facts(t(), {}, 0)).decision).toMatchObject({ wait: { until: 240_000 } })
    expect(decide(loop({ backoffs: 20 }), facts(t(), {}, 0)).decision).toMatchObject({ wait: { until: 6 * 3_600_000 } })
  })

  it("a transient failure (5xx) → back off within backoffMaxMinutes, counted by the breaker", () => {
    const t = () => turn("", { error: { name: "APIError", message: "Bad Gateway", statusCode: 502 } })
    const { decision: d, update } = decide(loop({ backoffs: 20 }), facts(t(), {}, 0))
    expect(d).toMatchObject({ type: "wait", wait: { reason: "backoff", until: 30 * 60_000, then: "resume" } })
    expect(update.breaker?.sameError).toBe(1)
  })

  it("context overflow, output length or a compaction → continue in a fresh session, whatever the strategy", () => {
    const l = () => loop({}, { strategy: "continue" })
    expect(decision(l(), turn("", { error: { name: "ContextOverflowError", message: "too long" } }))).toMatchObject({
      type: "restart",
      fresh: true,
    })
    expect(decision(l(), turn("partial", { finish: "length" }))).toMatchObject({ type: "restart", fresh: true })
    expect(decision(l(), turn("", { compacted: true }))).toMatchObject({ type: "restart", fresh: true })
  })

  it("a permission or question pending → wait, send nothing", () => {
    const l = loop({ turnEvents: { ...emptyTurnEvents(), pending: ["per_1"] } })
    expect(decision(l, turn("working"))).toMatchObject({ type: "wait-for-user" })
  })

  it("another error → the next iteration, with the error named", () => {
    const d = decision(
      loop(),
      turn("", { error: { name: "APIError", message: "Invalid tool schema", statusCode: 400 } }),
    )
    expect(d).toMatchObject({ type: "restart", fresh: false, note: expect.stringContaining("Invalid tool schema") })
  })
})

describe("decide: open todos", () => {
  it("veto a completion claim: the next prompt names them; done ones do not count", () => {
    const outcome = decide(
      loop(),
      facts(turn("<promise>DONE</promise>"), { openTodos: ["write the tests", "update the README"] }),
    )
    expect(outcome.decision).toMatchObject({ type: "restart" })
    expect(outcome.decision.type === "restart" && outcome.decision.feedback).toBe(
      "The completion claim was rejected: these todos are still open — finish them (or cancel the ones no longer needed), then claim again:\n- write the tests\n- update the README",
    )
    expect(decision(loop(), turn("<promise>DONE</promise>"), { openTodos: [] })).toMatchObject({ type: "complete" })
  })

  it("do not, with requireTodosDone off; and a turn that claims nothing is not told about them", () => {
    expect(
      decision(loop({}, { requireTodosDone: false }), turn("<promise>DONE</promise>"), { openTodos: ["x"] }),
    ).toMatchObject({ type: "complete" })
    const outcome = decide(loop(), facts(turn("still working"), { openTodos: ["x"] }))
    expect(outcome.decision).toMatchObject({ type: "restart" })
    expect(outcome.decision.type === "restart" && outcome.decision.feedback).toBeUndefined()
  })
})

describe("decide: breaker, budgets and call limit", () => {
  it("opens the breaker after noProgressThreshold iterations without progress", () => {
    // The work tree as it was when the loop began (its baseline), and as it stays.
    let l = loop(
      { progress: { workTree: "tree", todosCompleted: 0, recentOutputs: [] } },
      { strategy: "continue", maxRetries: 20 },
    )
    const same = { workTree: "tree", todosCompleted: 0 }
    const types: string[] = []
    // Every reply is worded differently; nothing changes: words are not progress.
    const replies = ["still going", "trying another approach now", "almost there, looking at the parser"]
    for (let i = 0; i < 3; i += 1) {
      const { decision: d, update } = decide(l, facts(turn(replies[i] as string), same, i))
      types.push(d.type)
      if (d.type === "wait") expect(d.wait).toMatchObject({ reason: "breaker", then: "next", until: 2 + 30 * 60_000 })
      l = { ...l, ...update, retries: l.retries + 1, iteration: l.iteration + 1 }
    }
    expect(types).toEqual(["restart", "restart", "wait"])
    expect(l.breaker.state).toBe("OPEN")
  })

  it("stops on the token and the cost budget", () => {
    expect(decision(loop({ usage: { a: { tokens: 5_000, cost: 0 } } }, { maxTokens: 5_000 }), turn("w"))).toMatchObject(
      { type: "stop", reason: "token-budget" },
    )
    expect(
      decision(loop({ usage: { a: { tokens: 1, cost: 3 }, b: { tokens: 1, cost: 2.5 } } }, { maxCost: 5 }), turn("w")),
    ).toMatchObject({
      type: "stop",
      reason: "cost-budget",
    })
  })

  it("stops on the wall-time budget", () => {
    expect(decision(loop({}, { maxWallMinutes: 1 }), turn("w"), {}, 61_000)).toMatchObject({
      type: "stop",
      reason: "time-budget",
    })
  })

  it("waits for the call window when the next iteration's calls would pass the limit", () => {
    const l = loop({ calls: { startedAt: 0, count: 99 } }, { maxCallsPerHour: 100 })
    // recreate needs a summary and a prompt: 2 calls.
    expect(decision(l, turn("w"), {}, 1_000)).toMatchObject({
      type: "wait",
      wait: { reason: "call-limit", until: 3_600_000 },
    })
    expect(decision(loop({ calls: { startedAt: 0, count: 99 } }, { strategy: "continue" }), turn("w"))).toMatchObject({
      type: "restart",
    })
  })
})

describe("decide: the status block and the exit gate", () => {
  const block = (status: string, exit: string) =>
    `work\n---RALPH_STATUS---\nSTATUS: ${status}\nEXIT_SIGNAL: ${exit}\nRECOMMENDATION: next\n---END_RALPH_STATUS---`

  it("dual: STATUS COMPLETE with EXIT_SIGNAL false continues; two in a row with EXIT_SIGNAL true stops", () => {
    const l = loop({}, { statusBlock: true, exitGate: "dual" })
    const first = decide(l, facts(turn(block("COMPLETE", "false"))))
    expect(first.decision.type).toBe("restart")
    expect(first.update.completionStreak).toBe(1)
    const second = decide({ ...l, ...first.update }, facts(turn(block("COMPLETE", "true"))))
    expect(second.decision).toMatchObject({ type: "complete" })
  })

  it("dual: one COMPLETE with EXIT_SIGNAL true is not enough", () => {
    expect(decision(loop({}, { statusBlock: true, exitGate: "dual" }), turn(block("COMPLETE", "true"))).type).toBe(
      "restart",
    )
  })

  it("an explicit EXIT_SIGNAL false overrides the promise", () => {
    const l = loop({}, { statusBlock: true })
    expect(decision(l, turn(`<promise>DONE</promise>\n${block("COMPLETE", "false")}`)).type).toBe("restart")
    expect(decision(l, turn(`<promise>DONE</promise>\n${block("COMPLETE", "true")}`)).type).toBe("complete")
  })

  it("either: the promise alone is enough", () => {
    expect(decision(loop({}, { statusBlock: true, exitGate: "either" }), turn("<promise>DONE</promise>")).type).toBe(
      "complete",
    )
  })

  it("STATUS BLOCKED pauses and shows the recommendation", () => {
    const d = decision(loop({}, { statusBlock: true }), turn(block("BLOCKED", "false")))
    expect(d).toMatchObject({ type: "pause", reason: expect.stringContaining("next") })
  })
})

describe("decide: a loop that completes on its criteria (seed 004)", () => {
  const check = (errors: number) => ({
    name: "types",
    kind: "typecheck" as const,
    command: "tsc",
    status: errors ? ("failed" as const) : ("passed" as const),
    exitCode: errors ? 2 : 0,
    durationMs: 1,
    output: "",
    errors,
    warnings: 1,
    info: 0,
    security: 0,
    testsRun: 0,
    testsFailed: 0,
    testsPassed: 0,
    files: [],
  })
  const snapshotAt = (iteration: number, errors: number) => snapshotOf(iteration, 0, [check(errors)])
  const criteriaLoop = (set: Parameters<typeof loop>[1] = {}) =>
    loop(
      {
        iteration: 3,
        progress: { workTree: "before", todosCompleted: 0, recentOutputs: [] },
        snapshots: [snapshotAt(1, 4), snapshotAt(2, 2)],
      },
      { completeOnCriteria: true, ...set },
    )
  const run = (l: ReturnType<typeof loop>, errors: number, workTree: string, openTodos: string[] = []) =>
    decide(l, {
      turn: turn("still working, no promise"),
      sample: { workTree, todosCompleted: 0, openTodos, sessionID: "ses_a" },
      now: 1_000,
      snapshot: snapshotAt(3, errors),
    }).decision

  it("completes without a promise when every criterion holds after an iteration that changed the work tree, with seed 004's COMPLETE line", () => {
    expect(run(criteriaLoop(), 0, "after")).toEqual({
      type: "complete",
      detail:
        "every criterion holds after an iteration that changed the work tree — Ralph Loop: COMPLETE - All conditions satisfied | Session: ses_a | Iterations: 3 | Total improvement: 80% | Initial: 4 errors, 1 warnings | Final: 0 errors, 1 warnings",
    })
  })

  it("counts from the checks run before the first prompt when the loop has them: a one-iteration loop shows where it started", () => {
    const l = loop(
      {
        iteration: 1,
        progress: { workTree: "before", todosCompleted: 0, recentOutputs: [] },
        initialChecks: snapshotAt(0, 5),
      },
      { completeOnCriteria: true },
    )
    const decision = run(l, 0, "after")
    expect(decision).toMatchObject({ type: "complete" })
    expect(decision.type === "complete" && decision.detail).toContain(
      "| Iterations: 1 | Total improvement: 83% | Initial: 5 errors, 1 warnings | Final: 0 errors, 1 warnings",
    )
  })

  it("goes on when a criterion fails, when the work tree did not change, with open todos, or when the loop was not started on its criteria", () => {
    expect(run(criteriaLoop(), 1, "after")).toMatchObject({ type: "restart" })
    expect(run(criteriaLoop(), 0, "before")).toMatchObject({ type: "restart" })
    expect(run(criteriaLoop(), 0, "after", ["write the docs"])).toMatchObject({ type: "restart" })
    expect(run(criteriaLoop({ completeOnCriteria: false }), 0, "after")).toMatchObject({ type: "restart" })
  })
})
