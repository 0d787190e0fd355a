// A plan loop's pure parts: the decision on a story claimed done, its prompts, toasts, status and
// report, and its place in the state file.
import { describe, expect, it } from "vitest"
import { iterationTitle } from "../../src/loop/notices.js"
import { statusText } from "../../src/acts/status-text.js"
import { decide, type Facts } from "../../src/loop/decide.js"
import { snapshotOf, type CheckResult } from "../../src/checks/diagnostics.js"
import {
  continuePrompt,
  freshSessionPrompt,
  loopRules,
  planFirstPrompt,
  resumePrompt,
  systemNote,
} from "../../src/loop/prompts.js"
import type { Turn } from "../../src/loop/turn.js"
import type { PlanState, Story } from "../../src/plan/plan.js"
import { PlanRequests } from "../../src/plan/requests.js"
import { parseStateText, stateText } from "../../src/store/loop-store.js"
import { renderReport } from "../../src/store/report.js"
import { loop } from "./fixtures.js"

const story = (id: string, extra: Partial<Story> = {}): Story => ({
  id,
  title: `title of ${id}`,
  acceptanceCriteria: [`${id} works`],
  dependsOn: [],
  checks: [],
  ...extra,
})
const plan = (done: PlanState["done"] = []): PlanState => ({
  file: ".opencode/prd.json",
  shape: "userStories",
  stories: [
    story("US-1", { description: "As a user…", checks: [{ name: "api", command: "npm test", kind: "test" }] }),
    story("US-2", { dependsOn: ["US-1"] }),
    story("US-3"),
  ],
  done,
})

let n = 0
const turn = (text: string): Turn => ({ lastAssistantID: `msg_${++n}`, texts: [text] })
const facts = (t: Turn, snapshot?: Facts["snapshot"]): Facts => ({
  turn: t,
  sample: { workTree: "same", todosCompleted: 0, sessionID: "ses_a", openTodos: [] },
  now: 1_000,
  snapshot,
})
const result = (name: string, passed: boolean): CheckResult => ({
  name,
  kind: "test",
  command: "x",
  status: passed ? "passed" : "failed",
  exitCode: passed ? 0 : 1,
  durationMs: 1,
  output: passed ? "" : "FAIL",
  errors: 0,
  warnings: 0,
  info: 0,
  security: 0,
  testsRun: 1,
  testsFailed: passed ? 0 : 1,
  testsPassed: passed ? 1 : 0,
  files: [],
})

describe("decide, in a plan loop", () => {
  it("a kept promise whose checks pass marks the current story done and goes on to the next, as progress", () => {
    const l = loop(
      {
        plan: plan(),
        iteration: 2,
        completionStreak: 0,
        progress: { workTree: "same", todosCompleted: 0, recentOutputs: [] },
      },
      { noProgressThreshold: 1 },
    )
    const { decision, update } = decide(
      l,
      facts(turn("done <promise>DONE</promise>"), snapshotOf(2, 0, [result("api", true)])),
    )
    expect(decision).toEqual({ type: "restart", fresh: false })
    expect(update.plan?.done).toEqual([{ id: "US-1", iteration: 2, checks: ["api"] }])
    expect(update.completionStreak).toBe(0)
    // No change in the work tree, but a story done: the breaker sees progress.
    expect(update.breaker?.state).toBe("CLOSED")
  })

  it("failing checks keep the story, with the failure as feedback", () => {
    const { decision, update } = decide(
      loop({ plan: plan() }),
      facts(turn("<promise>DONE</promise>"), snapshotOf(1, 0, [result("api", false)])),
    )
    expect(decision).toMatchObject({
      type: "restart",
      feedback: expect.stringContaining("the completion claim was rejected"),
    })
    expect(update.plan).toBeUndefined()
  })

  it("open todos veto the story's claim as a failing check does (requireTodosDone)", () => {
    const open = {
      turn: turn("<promise>DONE</promise>"),
      sample: { workTree: "same", todosCompleted: 0, sessionID: "ses_a", openTodos: ["wire the API"] },
      now: 1_000,
    }
    const vetoed = decide(loop({ plan: plan() }), open)
    expect(vetoed.decision).toMatchObject({ type: "restart", feedback: expect.stringContaining("- wire the API") })
    expect(vetoed.update.plan).toBeUndefined()
    expect(
      decide(loop({ plan: plan() }, { requireTodosDone: false }), {
        ...open,
        turn: turn("<promise>DONE</promise>"),
      }).update.plan?.done.map((d) => d.id),
    ).toEqual(["US-1"])
  })

  it("no promise: the story stays", () => {
    const { decision, update } = decide(loop({ plan: plan() }), facts(turn("working")))
    expect(decision).toEqual({ type: "restart", fresh: false })
    expect(update.plan).toBeUndefined()
  })

  it("completes when the last story is done", () => {
    const l = loop({
      plan: plan([
        { id: "US-1", iteration: 1, checks: [] },
        { id: "US-2", iteration: 2, checks: [] },
      ]),
      iteration: 3,
      retries: 2,
    })
    const { decision, update } = decide(l, facts(turn("<promise>DONE</promise>")))
    expect(decision).toEqual({
      type: "complete",
      detail: "all 3 stories of the plan are done; the last one: the promise was kept",
    })
    expect(update.plan?.done.map((d) => d.id)).toEqual(["US-1", "US-2", "US-3"])
  })

  it("a story done on the last allowed iteration is still recorded when the limit stops the loop", () => {
    const l = loop({ plan: plan(), iteration: 4, retries: 3 }, { maxIterations: 4 })
    const { decision, update } = decide(l, facts(turn("<promise>DONE</promise>")))
    expect(decision).toMatchObject({ type: "stop", reason: "max-iterations" })
    expect(update.plan?.done.map((d) => d.id)).toEqual(["US-1"])
  })

  it("the retries are the current story's: a story done on its last retry starts the next one's count over (maxRetries 3)", () => {
    // US-1 took 4 iterations (3 restarts, all it had): done, the loop goes on to US-2.
    const lastTry = loop({ plan: plan(), iteration: 4, retries: 3 })
    expect(decide(lastTry, facts(turn("<promise>DONE</promise>"))).decision).toEqual({ type: "restart", fresh: false })
    // US-2 (done US-1 in iteration 4) is at iteration 7 on its 2nd restart: one left.
    const second = plan([{ id: "US-1", iteration: 4, checks: [] }])
    expect(decide(loop({ plan: second, iteration: 7, retries: 6 }), facts(turn("working"))).decision).toEqual({
      type: "restart",
      fresh: false,
    })
    // At iteration 8 its 3 restarts are used: the loop stops, naming the story.
    expect(decide(loop({ plan: second, iteration: 8, retries: 7 }), facts(turn("working"))).decision).toEqual({
      type: "stop",
      reason: "retries-exhausted",
      detail: "story US-2 (title of US-2) is not done after 4 iterations, 3 restarts (maxRetries 3 per story)",
    })
  })

  it("with autoRestart off, a story done pauses the loop until /ralph-resume", () => {
    const { decision, update } = decide(
      loop({ plan: plan() }, { autoRestart: false }),
      facts(turn("<promise>DONE</promise>")),
    )
    expect(decision).toEqual({
      type: "pause",
      reason: "story US-1 is done; autoRestart is off, so the next story waits for /ralph-resume",
    })
    expect(update.plan?.done.map((d) => d.id)).toEqual(["US-1"])
  })
})

describe("a plan loop's texts", () => {
  const l = loop(
    { plan: plan([{ id: "US-1", iteration: 1, checks: ["api"] }]), iteration: 2, retries: 1 },
    { checks: [{ name: "types", command: "tsc", kind: "typecheck" }] },
  )

  it("every prompt names the story, its criteria and checks, and the plan's progress", () => {
    for (const text of [
      continuePrompt(l, 2, undefined, undefined, [], "Newest entries:\n### entry"),
      freshSessionPrompt(l, 2, "SUMMARY"),
      resumePrompt(l, "Go on.", "Newest entries:\n### entry"),
    ]) {
      expect(text).toContain("## Current story: US-2 (story 2 of 3) — title of US-2")
      expect(text).toContain("Acceptance criteria:\n- US-2 works")
      expect(text).toContain("Checks the plugin runs when you say it is done: types (`tsc`)")
      expect(text).toContain(
        "## Plan progress: .opencode/prd.json — 1 of 3 stories done\n- [x] US-1 title of US-1 (done in iteration 1)\n- [ ] US-2 title of US-2 ← current story\n- [ ] US-3 title of US-3",
      )
      expect(text).toContain("When the current story is completely done")
    }
    expect(continuePrompt(l, 2)).toContain(
      "Story US-1 (title of US-1) is done: the plugin ran the checks (api), they pass, and marked it in the plan. Now work on story US-2.",
    )
    expect(continuePrompt(l, 2, undefined, undefined, [], "Newest entries:\n### entry")).toContain(
      "## Progress log (newest entries; .opencode/ralph-loop/progress.md)\nNewest entries:\n### entry",
    )
    expect(continuePrompt(l, 3)).toContain("so the story is not finished")
  })

  it("the first prompt holds the task and the story; the rules say who marks it done", () => {
    const first = loop({ plan: plan() })
    expect(planFirstPrompt(first, "")).toContain(
      "## Task\nbuild it\n\n## Current story: US-1 (story 1 of 3) — title of US-1\n\nAs a user…",
    )
    expect(planFirstPrompt(first, "")).toContain("- [ ] US-2 title of US-2 (waits for US-1)")
    expect(loopRules(first.settings, first.plan)).toContain("do not mark stories done in the plan yourself")
    expect(loopRules(first.settings)).toContain("<learning>")
  })

  it("toasts and the system note name the story and its place", () => {
    // A plan's iterations are counted over the whole plan: maxIterations (50), not maxRetries + 1.
    expect(iterationTitle(l)).toBe("Ralph 2/50 · story US-2 (2 of 3) · title of US-2")
    expect(iterationTitle(loop())).toBe("Ralph 1/4 · build it")
    expect(systemNote(l)).toContain("Plan: story US-2 (2 of 3) — work on this story only.")
  })

  it("/ralph-status and the report list the stories with their state", () => {
    const status = statusText(l, 0)
    expect(status).toContain("Iteration 2 of 50 · restarts of story US-2: 0 of 3 · strategy")
    expect(status).toContain(
      "Limits: 50 iterations for the whole plan (maxIterations); 4 per story (maxRetries 3 + 1, counted again from each story done)",
    )
    expect(status).toContain(
      "Plan: .opencode/prd.json — 1 of 3 stories done\n  ✓ US-1 title of US-1 — done (iteration 1)\n  → US-2 title of US-2 — current\n  · US-3 title of US-3 — to do",
    )
    const report = renderReport({ ...l, phase: "stopped", stopReason: "cancelled" }, [], 0)
    expect(report).toContain("| US-1 | title of US-1 | done | 1 | api |\n| US-2 | title of US-2 | current |  |  |")
    expect(statusText(loop({ plan: plan() }), 0)).toContain("· US-2 title of US-2 — waiting (for US-1)")
  })
})

describe("a plan loop on disk", () => {
  it("keeps its plan and place through the state file", () => {
    const l = loop({ plan: plan([{ id: "US-1", iteration: 1, checks: ["api"] }]) })
    expect(parseStateText(stateText(l, 0)).loop.plan).toEqual(l.plan)
    expect(parseStateText(stateText(loop(), 0)).loop.plan).toBeUndefined()
  })
})

describe("/ralph-plan requests", () => {
  it("claim the idle that ends the model's turn (only after a busy), once per ask", () => {
    const requests = new PlanRequests()
    const request = requests.ask("ses_p", ".opencode/prd.json", undefined)
    expect(requests.takeIdle("ses_p")).toBeUndefined()
    requests.onBusy("ses_p")
    expect(requests.takeIdle("ses_p")).toBe(request)
    expect(requests.takeIdle("ses_p")).toBeUndefined()
    requests.askedAgain(request)
    expect(request.asks).toBe(2)
    requests.onBusy("ses_p")
    requests.finished("ses_p")
    expect(requests.takeIdle("ses_p")).toBeUndefined()
    expect(requests.has("ses_p")).toBe(false)
  })
})
