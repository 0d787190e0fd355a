import { describe, expect, it } from "vitest"
import { statusText } from "../../src/commands/status-text.js"
import { snapshotOf } from "../../src/loop/diagnostics.js"
import { loop } from "./fixtures.js"

describe("/ralph-status", () => {
  it("shows state, iteration, strategy, breaker, calls, budgets, last checks and the session lineage", () => {
    const l = loop(
      {
        phase: "running",
        iteration: 3,
        retries: 2,
        lineage: ["ses_first", "ses_second"],
        sessionID: "ses_third",
        snapshots: [
          snapshotOf(2, 0, [{ name: "test", kind: "test", command: "npm test", status: "failed", exitCode: 1, durationMs: 1, output: "", errors: 0, warnings: 0, info: 0, security: 0, testsRun: 3, testsFailed: 1, testsPassed: 2, files: [] }]),
        ],
      },
      { checks: [{ name: "test", command: "npm test", kind: "test" }] },
    )
    const text = statusText(l, 60_000)
    expect(text).toContain("Ralph loop — running")
    expect(text).toContain("Iteration 3 of 4 · restarts 2 of 3 · strategy recreate")
    expect(text).toContain("Circuit breaker: CLOSED")
    expect(text).toContain("Calls: 0 of 100 this window")
    expect(text).toContain("time 1.0 of 480 min")
    expect(text).toContain("Last checks (iteration 2): test failed — 1 test(s) failing")
    expect(text).toContain("Sessions: ses_first → ses_second → ses_third (current)")
  })

  it("says when no checks exist", () => {
    expect(statusText(loop(), 0)).toContain("Checks: none configured or detected")
  })
})
