import { describe, expect, it } from "vitest"
import { EXIT, exitCode } from "../../src/cli/run/exit-code.js"
import { stopReasonSchema, type StopReason } from "../../src/loop/loop.js"

describe("ralph-loop run's exit code", () => {
  it("one code per class of ending, each stop reason in its class", () => {
    const byReason = Object.fromEntries(
      stopReasonSchema.options.map((reason: StopReason) => [reason, exitCode({ kind: "stopped", reason })]),
    )
    expect(byReason).toEqual({
      completed: 0,
      "retries-exhausted": 3,
      "max-iterations": 3,
      "token-budget": 3,
      "cost-budget": 3,
      "time-budget": 3,
      stagnation: 4,
      review: 4,
      "auth-error": 5,
      cancelled: 130,
      "session-deleted": 130,
      replaced: 130,
    })
    expect(exitCode({ kind: "paused" })).toBe(EXIT.paused)
    // A --story loop that completed without its branch: never 0, and not a limit or a failure of the runner.
    expect(exitCode({ kind: "story-not-committed" })).toBe(7)
    expect(exitCode({ kind: "interrupted" })).toBe(130)
    expect(exitCode({ kind: "usage" })).toBe(2)
    expect(exitCode({ kind: "runner-failure" })).toBe(1)
  })

  it("no two classes share a code", () => {
    const codes = Object.values(EXIT)
    expect(new Set(codes).size).toBe(codes.length)
  })
})
