import { describe, expect, it } from "vitest"
import { afterCooldown, closedBreaker, cooldownEndsAt, recordIteration, type Breaker } from "../../src/loop/breaker.js"

const limits = { noProgressThreshold: 3, sameErrorThreshold: 5, cooldownMinutes: 30 }
const run = (steps: Array<{ progress: boolean; error?: string; failure?: string }>, start: Breaker = closedBreaker()) =>
  steps.reduce((b, step, i) => recordIteration(b, step, limits, i), start)

describe("circuit breaker", () => {
  it("CLOSED → OPEN after noProgressThreshold iterations without progress, not before", () => {
    expect(run([{ progress: false }, { progress: false }]).state).toBe("CLOSED")
    const open = run([{ progress: false }, { progress: false }, { progress: false }])
    expect(open).toMatchObject({ state: "OPEN", openedAt: 2, reason: "3 iterations in a row without progress" })
  })

  it("the same checks failing the same way sameErrorThreshold times open it, even while the work tree changes; they do not stand for progress", () => {
    const failing = Array.from({ length: 5 }, () => ({
      progress: true,
      failure: "checks failing: tests: FAIL a.test.ts:# expected 1",
    }))
    expect(run(failing.slice(0, 4)).state).toBe("CLOSED")
    expect(run(failing)).toMatchObject({
      state: "OPEN",
      reason: "5 iterations in a row ended in the same error: checks failing: tests: FAIL a.test.ts:# expected 1",
    })
    expect(
      run([
        { progress: false, failure: "F" },
        { progress: false, failure: "F" },
        { progress: false, failure: "F" },
      ]).reason,
    ).toBe("3 iterations in a row without progress")
    expect(run([...failing.slice(0, 4), { progress: true, failure: "another" }, ...failing.slice(0, 3)]).state).toBe(
      "CLOSED",
    )
  })

  it("progress resets the no-progress count", () => {
    expect(
      run([{ progress: false }, { progress: false }, { progress: true }, { progress: false }, { progress: false }])
        .state,
    ).toBe("CLOSED")
  })

  it("CLOSED → OPEN after sameErrorThreshold iterations ending in the same error", () => {
    const same = Array.from({ length: 5 }, () => ({ progress: false, error: "E1" }))
    expect(run(same.slice(0, 4)).state).toBe("CLOSED")
    expect(run(same).state).toBe("OPEN")
    expect(run(same).reason).toContain("5 iterations in a row ended in the same error: E1")
  })

  it("a different error restarts the same-error count; error turns do not count as no progress", () => {
    const mixed = [
      ...Array(4).fill({ progress: false, error: "E1" }),
      { progress: false, error: "E2" },
      ...Array(3).fill({ progress: false, error: "E2" }),
    ]
    const b = run(mixed)
    expect(b).toMatchObject({ state: "CLOSED", sameError: 4, noProgress: 0 })
  })

  it("OPEN → HALF_OPEN only once the cooldown has passed (clock edges)", () => {
    const open = run([{ progress: false }, { progress: false }, { progress: false }])
    const end = cooldownEndsAt(open, limits)
    expect(end).toBe(2 + 30 * 60_000)
    expect(afterCooldown(open, limits, end - 1).state).toBe("OPEN")
    expect(afterCooldown(open, limits, end).state).toBe("HALF_OPEN")
    expect(afterCooldown(closedBreaker(), limits, end).state).toBe("CLOSED")
  })

  it("HALF_OPEN → CLOSED on progress, → OPEN on no progress or an error", () => {
    const half: Breaker = { ...closedBreaker(), state: "HALF_OPEN", noProgress: 3 }
    expect(recordIteration(half, { progress: true }, limits, 10)).toMatchObject({
      state: "CLOSED",
      noProgress: 0,
      sameError: 0,
    })
    expect(recordIteration(half, { progress: false }, limits, 10)).toMatchObject({ state: "OPEN", openedAt: 10 })
    expect(recordIteration(half, { progress: true, error: "E" }, limits, 10)).toMatchObject({ state: "OPEN" })
  })
})
