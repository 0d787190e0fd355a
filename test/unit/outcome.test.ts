import { describe, expect, it } from "vitest"
import { outcomeTitle } from "../../src/loop/outcome.js"
import { loop } from "./fixtures.js"

describe("the title of a stopped loop's session", () => {
  it("says how it ended, the task and the iterations", () => {
    expect(outcomeTitle(loop({ phase: "stopped", stopReason: "completed", iteration: 3 }))).toBe(
      "Ralph ✓ · build it · 3 iterations",
    )
    expect(outcomeTitle(loop({ phase: "stopped", stopReason: "cancelled", iteration: 1 }))).toBe(
      "Ralph ■ cancelled · build it · 1 iteration",
    )
    expect(outcomeTitle(loop({ phase: "stopped", stopReason: "max-iterations", iteration: 6 }))).toBe(
      "Ralph ⚠ limit · build it · 6 iterations",
    )
    expect(outcomeTitle(loop({ phase: "stopped", stopReason: "retries-exhausted", iteration: 4 }))).toBe(
      "Ralph ⚠ limit · build it · 4 iterations",
    )
    expect(outcomeTitle(loop({ phase: "stopped", stopReason: "token-budget", iteration: 2 }))).toBe(
      "Ralph ⚠ token budget · build it · 2 iterations",
    )
  })

  it("shortens a long task to one line", () => {
    const title = outcomeTitle(
      loop({ task: `first line ${"x".repeat(80)}\nsecond`, phase: "stopped", stopReason: "completed", iteration: 2 }),
    )
    expect(title).toMatch(/^Ralph ✓ · first line x+… · 2 iterations$/)
    expect(title?.length).toBeLessThan(80)
  })

  it("leaves the title alone for a loop still going, a deleted session, or one taken over by a new /ralph", () => {
    expect(outcomeTitle(loop({ phase: "running" }))).toBeUndefined()
    expect(outcomeTitle(loop({ phase: "stopped", stopReason: "session-deleted" }))).toBeUndefined()
    expect(outcomeTitle(loop({ phase: "stopped", stopReason: "replaced" }))).toBeUndefined()
  })
})
