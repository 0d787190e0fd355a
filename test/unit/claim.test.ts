import { describe, expect, it } from "vitest"
import { claimAnswer, judgeClaim } from "../../src/loop/claim.js"
import { decide, type Facts } from "../../src/loop/decide.js"
import { snapshotOf, type CheckResult } from "../../src/checks/diagnostics.js"
import type { Turn } from "../../src/loop/turn.js"
import { readTurn } from "../../src/loop/read-turn.js"
import type { PlanState, Story } from "../../src/plan/plan.js"
import { assistant, loop, user } from "./fixtures.js"

const result = (name: string, passed: boolean): CheckResult => ({
  name,
  kind: "test",
  command: "npm test",
  status: passed ? "passed" : "failed",
  exitCode: passed ? 0 : 1,
  durationMs: 1,
  output: passed ? "" : "FAIL: it broke",
  errors: 0,
  warnings: 0,
  info: 0,
  security: 0,
  testsRun: 1,
  testsFailed: passed ? 0 : 1,
  testsPassed: passed ? 1 : 0,
  files: [],
})
const settings = loop().settings
const story = (id: string): Story => ({ id, title: id, acceptanceCriteria: [], dependsOn: [], checks: [] })
const plan = (ids: string[]): PlanState => ({
  file: ".opencode/prd.json",
  shape: "userStories",
  stories: ids.map(story),
  done: [],
})

describe("judgeClaim: one rule for the promise and ralph_done", () => {
  it("holds when the checks pass and no todo is open; open todos veto only with requireTodosDone", () => {
    expect(judgeClaim(snapshotOf(1, 0, [result("t", true)]), [], settings)).toEqual({
      unmet: [],
      openTodos: [],
      accepted: true,
    })
    expect(judgeClaim(undefined, ["wire it"], settings)).toMatchObject({ openTodos: ["wire it"], accepted: false })
    expect(judgeClaim(undefined, ["wire it"], { ...settings, requireTodosDone: false })).toMatchObject({
      openTodos: [],
      accepted: true,
    })
  })

  it("a failing check rejects it with what is unmet", () => {
    const judged = judgeClaim(snapshotOf(1, 0, [result("t", false)]), [], settings)
    expect(judged.accepted).toBe(false)
    expect(judged.unmet).toEqual(["1 test(s) failing"])
  })

  it("a check that exited non-zero rejects it even when it counted only what the criteria allow", () => {
    const lint: CheckResult = {
      ...result("lint", false),
      kind: "lint",
      output: "src/a.ts:1:1: warning x\nESLint found too many warnings (maximum: 0).",
      testsRun: 0,
      testsFailed: 0,
      warnings: 1,
    }
    const judged = judgeClaim(snapshotOf(1, 0, [lint]), [], settings)
    expect(settings.zeroWarnings).toBe(false)
    expect(judged).toEqual({ unmet: ['check "lint" failed (exit 1)'], openTodos: [], accepted: false })
    const turn: Turn = { lastAssistantID: "msg_1", texts: ["<promise>DONE</promise>"] }
    const decided = decide(loop(), {
      turn,
      sample: { workTree: "w", todosCompleted: 0, openTodos: [], sessionID: "ses_a" },
      now: 1_000,
      snapshot: snapshotOf(1, 0, [lint]),
    })
    expect(decided.decision).toMatchObject({
      type: "restart",
      feedback: expect.stringContaining('check "lint" failed (exit 1)'),
    })
  })
})

describe("claimAnswer: what the tool tells the model", () => {
  it("a rejection names the todos, the unmet criteria and the check's output", () => {
    const snapshot = snapshotOf(1, 0, [result("t", false)])
    const text = claimAnswer(loop(), judgeClaim(snapshot, ["wire it"], settings), snapshot, false)
    expect(text).toMatch(/^Rejected/)
    expect(text).toContain("- wire it")
    expect(text).toContain("- 1 test(s) failing")
    expect(text).toContain("FAIL: it broke")
    expect(text).toContain("call ralph_done again")
  })

  it("an acceptance says what ends: the loop (after review, when on), or in a plan the story", () => {
    const snapshot = snapshotOf(1, 0, [result("t", true)])
    const accepted = judgeClaim(snapshot, [], settings)
    expect(claimAnswer(loop(), accepted, snapshot, false)).toBe(
      "Accepted: the checks pass (t). End your turn now: the loop completes when it ends.",
    )
    expect(claimAnswer(loop(), accepted, undefined, true)).toContain(
      "no checks are configured. End your turn now: the loop completes when it ends, once a reviewer has approved the change.",
    )
    expect(claimAnswer(loop({ plan: plan(["US-1", "US-2"]) }), accepted, snapshot, false)).toContain(
      "story US-1 is done",
    )
    expect(claimAnswer(loop({ plan: plan(["US-1"]) }), accepted, snapshot, false)).toContain("the loop completes")
    expect(claimAnswer(loop({}, { exitGate: "dual" }), accepted, snapshot, false)).toContain("EXIT_SIGNAL: true")
  })
})

describe("a ralph_done call in the turn", () => {
  const doneCall = (state: Record<string, unknown>) =>
    ({ type: "tool", tool: "ralph_done", callID: "c1", state }) as never

  it("readTurn keeps the last completed call's arguments", () => {
    const second = assistant([
      doneCall({
        status: "completed",
        input: { summary: "second", evidence: "ran npm test" },
        output: "Accepted",
        title: "",
        metadata: {},
        time: { start: 0, end: 1 },
      }),
    ])
    const messages = [
      user("go"),
      assistant([
        doneCall({
          status: "completed",
          input: { summary: "first", evidence: ["a"] },
          output: "Rejected",
          title: "",
          metadata: {},
          time: { start: 0, end: 1 },
        }),
      ]),
      second,
    ]
    // The message that called: the turn's end matches it with the call's judged checks.
    expect(readTurn(messages).doneCall).toEqual({
      summary: "second",
      evidence: ["ran npm test"],
      messageID: second.info.id,
    })
    expect(
      readTurn([
        user("go"),
        assistant([doneCall({ status: "error", input: {}, error: "x", time: { start: 0, end: 1 } })]),
      ]).doneCall,
    ).toBeUndefined()
  })

  it("decide takes it as the promise: complete when the checks pass, rejected with the failure otherwise", () => {
    const turn: Turn = { lastAssistantID: "msg_1", texts: ["finished"], doneCall: { summary: "s", evidence: [] } }
    const facts = (snapshot: Facts["snapshot"]): Facts => ({
      turn,
      sample: { workTree: "w", todosCompleted: 0, openTodos: [], sessionID: "ses_a" },
      now: 1_000,
      snapshot,
    })
    expect(decide(loop(), facts(snapshotOf(1, 0, [result("t", true)]))).decision).toEqual({
      type: "complete",
      detail: "ralph_done was called and the checks pass",
    })
    expect(decide(loop(), facts(snapshotOf(1, 0, [result("t", false)]))).decision).toMatchObject({
      type: "restart",
      feedback: expect.stringContaining("the completion claim was rejected"),
    })
  })
})
