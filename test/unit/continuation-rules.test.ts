import type { Todo } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import { freshRun, nextAutoStep, stagnantRuns } from "../../src/continuations/auto-rule.js"
import { keywordArguments } from "../../src/continuations/keyword.js"
import { freshStreak, nextTodoStep, type TodoStreak } from "../../src/continuations/todo-rule.js"
import { featureOn, type Feature } from "../../src/config/features.js"
import { countdownNotice, isContinuationText, todoPrompt, autoPrompt } from "../../src/continuations/texts.js"
import { snapshotOf } from "../../src/checks/diagnostics.js"

const todo = (content: string, status: string): Todo => ({ id: content, content, status, priority: "high" })

describe("todo-continuation rule", () => {
  const open2 = [
    todo("write the parser", "pending"),
    todo("document the flags", "in_progress"),
    todo("set up", "completed"),
  ]

  it("continues a session with open todos, counting the continuation", () => {
    const step = nextTodoStep(freshStreak(), open2, 3)
    expect(step).toMatchObject({ type: "continue", n: 1, next: { streak: 1, completedAtLast: 1 } })
    if (step.type === "continue")
      expect(step.open.map((t) => t.content)).toEqual(["write the parser", "document the flags"])
  })

  it("does nothing without open todos (completed and cancelled are not open), and the count starts over", () => {
    const step = nextTodoStep(
      { streak: 2, completedAtLast: 1, limitShown: false },
      [todo("a", "completed"), todo("b", "cancelled")],
      3,
    )
    expect(step).toEqual({ type: "none", reason: "no open todos", next: freshStreak() })
    expect(nextTodoStep(freshStreak(), [], 3).type).toBe("none")
  })

  it("stops at max in a row without a todo completed, announcing it once", () => {
    let state: TodoStreak = freshStreak()
    const types: string[] = []
    for (let i = 0; i < 5; i += 1) {
      const step = nextTodoStep(state, open2, 3)
      types.push(step.type === "limit" ? `limit${step.announce ? "!" : ""}` : step.type)
      state = step.next
    }
    expect(types).toEqual(["continue", "continue", "continue", "limit!", "limit"])
  })

  it("a todo completed since the last continuation starts the count again", () => {
    const atLimit: TodoStreak = { streak: 3, completedAtLast: 1, limitShown: false }
    expect(nextTodoStep(atLimit, open2, 3).type).toBe("limit")
    const progressed = [...open2, todo("tests", "completed")]
    expect(nextTodoStep(atLimit, progressed, 3)).toMatchObject({
      type: "continue",
      n: 1,
      next: { streak: 1, completedAtLast: 2 },
    })
  })
})

describe("auto-continue rule", () => {
  it("continues while the checks report errors, up to max per user message", () => {
    let run = freshRun()
    const steps: string[] = []
    for (const errors of [5, 4, 3, 2]) {
      const { step, next } = nextAutoStep(run, errors, 3)
      steps.push(step.type)
      run = next
    }
    expect(steps).toEqual(["continue", "continue", "continue", "limit"])
    expect(run).toMatchObject({ count: 3, ended: true })
  })

  it("passes at zero errors", () => {
    expect(nextAutoStep({ count: 1, errors: [3], ended: false }, 0, 3).step).toEqual({ type: "pass" })
  })

  it("stops on stagnation: two runs in a row without fewer errors", () => {
    expect(stagnantRuns([3, 3, 4])).toBe(2)
    expect(stagnantRuns([5, 3, 3])).toBe(1)
    expect(stagnantRuns([4])).toBe(0)
    const once = nextAutoStep({ count: 1, errors: [3], ended: false }, 3, 5)
    expect(once.step.type).toBe("continue")
    const twice = nextAutoStep(once.next, 3, 5)
    expect(twice.step).toEqual({ type: "stagnant", errors: 3, runs: 2 })
    expect(twice.next.ended).toBe(true)
  })
})

describe("keyword", () => {
  it("takes the rest of a message that starts with a keyword, in any case", () => {
    expect(keywordArguments("ralph: write hello.txt", ["ralph:"])).toBe("write hello.txt")
    expect(keywordArguments("  RALPH:   fix it --max-iterations 3", ["ralph:"])).toBe("fix it --max-iterations 3")
    expect(keywordArguments("ralph:", ["ralph:"])).toBe("")
  })

  it("needs the keyword at the start, and the longest one wins", () => {
    expect(keywordArguments("please ralph: do it", ["ralph:"])).toBeUndefined()
    expect(keywordArguments("ralph loop: go", ["ralph:"])).toBeUndefined()
    expect(keywordArguments("ulw: go", ["ulw", "ulw:"])).toBe("go")
    expect(keywordArguments("anything", [])).toBeUndefined()
    expect(keywordArguments("anything", [""])).toBeUndefined()
  })
})

describe("feature switches", () => {
  const base = { disabledFeatures: [] as Feature[], autoContinue: false }
  it("a feature is on unless disabled; auto-continue only with autoContinue", () => {
    expect(featureOn(base, "todo-continuation")).toBe(true)
    expect(featureOn({ ...base, disabledFeatures: ["todo-continuation"] }, "todo-continuation")).toBe(false)
    expect(featureOn(base, "auto-continue")).toBe(false)
    expect(featureOn({ ...base, autoContinue: true }, "auto-continue")).toBe(true)
    expect(featureOn({ disabledFeatures: ["auto-continue"], autoContinue: true }, "auto-continue")).toBe(false)
  })
})

describe("continuation texts", () => {
  const open = [todo("write the parser", "pending"), todo("document the flags", "in_progress")]
  it("the countdown toast as the contract words it", () => {
    expect(countdownNotice(open, 3, 1, 3).title).toBe("Ralph · continuing in 3 s — 2 open todos · type or Esc to stop")
    expect(countdownNotice(open.slice(0, 1), 1.5, 1, 3).title).toBe(
      "Ralph · continuing in 1.5 s — 1 open todo · type or Esc to stop",
    )
  })

  it("the plugin's own prompts are known as its own", () => {
    expect(isContinuationText(todoPrompt(open, 1, 3))).toBe(true)
    expect(todoPrompt(open, 1, 3)).toContain("- [in_progress] document the flags")
    const snapshot = snapshotOf(1, 0, [])
    const auto = autoPrompt(2, { ...snapshot, files: [{ path: "src/a.ts", errors: 2, warnings: 0 }] }, 1, 3)
    expect(auto.split("\n")[0]).toBe("Ralph Loop: AUTO-CONTINUE | 2 error(s) remaining | Next: fix src/a.ts (2)")
    expect(isContinuationText(auto)).toBe(true)
    expect(isContinuationText("ralph: do it")).toBe(false)
  })
})
