import { describe, expect, it } from "vitest"
import { endedText, loopLines, statusText } from "../../src/acts/status-text.js"
import { snapshotOf } from "../../src/checks/diagnostics.js"
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
          snapshotOf(2, 0, [
            {
              name: "test",
              kind: "test",
              command: "npm test",
              status: "failed",
              exitCode: 1,
              durationMs: 1,
              output: "",
              errors: 0,
              warnings: 0,
              info: 0,
              security: 0,
              testsRun: 3,
              testsFailed: 1,
              testsPassed: 2,
              files: [],
            },
          ]),
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
    expect(text).not.toContain("Struggle")
    expect(statusText(l, 60_000, { signal: "stuck", reason: "3 iterations in a row without progress" })).toContain(
      "\nStruggle: stuck — 3 iterations in a row without progress\n",
    )
  })

  it("says when no checks exist", () => {
    expect(statusText(loop(), 0)).toContain("Checks: none configured or detected")
  })
})

describe("/ralph-status after the loop ended", () => {
  const ended = loop({
    phase: "stopped",
    stopReason: "retries-exhausted",
    detail: "stopped after 3 restarts (maxRetries 3)",
    iteration: 4,
    retries: 3,
    lineage: ["ses_first"],
    sessionID: "ses_last",
    usage: { ses_first: { tokens: 1200, cost: 0.02 }, ses_last: { tokens: 800, cost: 0.01 } },
  })

  it("says how it ended: reason, iterations, time, tokens, cost, the report and the sessions", () => {
    const text = endedText({ loop: ended, savedAt: 150_000 }, ".opencode/sessions/ses_a/ralph_report.md", 150_000)
    expect(text.split("\n")).toEqual([
      "Ralph loop — ended ⚠ retries-exhausted: stopped after 3 restarts (maxRetries 3)",
      "Task: build it",
      "4 iterations of at most 4 · restarts 3 · strategy recreate",
      expect.stringMatching(/^Time: 2\.5 min, \S+ → \S+ · tokens 2,000 · cost 0\.03$/),
      "Report: .opencode/sessions/ses_a/ralph_report.md",
      "Sessions: ses_first → ses_last (last)",
    ])
    expect(endedText({ loop: ended, savedAt: 150_000 }, undefined, 150_000)).toContain("Report: not written")
  })

  it("lists the live loops first, then the others on disk, at most `max`", () => {
    const live = loop({ id: "ses_live", sessionID: "ses_live", phase: "running", iteration: 2 })
    const older = loop({
      id: "ses_old",
      phase: "stopped",
      stopReason: "completed",
      iteration: 1,
      task: "an older task",
    })
    const elsewhere = loop({ id: "ses_other", phase: "paused", iteration: 3, task: "another process's task" })
    // The live loop's own file on disk is not listed twice.
    const saved = [
      { loop: { ...live }, savedAt: 3 },
      { loop: elsewhere, savedAt: 2 },
      { loop: older, savedAt: 1 },
    ]
    expect(loopLines([live], saved, 10, 0)).toEqual([
      "- ● running · iteration 2 of 4 · build it · session ses_live",
      "- ◌ paused, not run by this OpenCode · iteration 3 · another process's task",
      expect.stringMatching(/^- ✓ completed · 1 iteration · ended \S+ · an older task$/),
    ])
    expect(loopLines([live], saved, 2, 0)).toHaveLength(2)
    expect(loopLines([], [], 10, 0)).toEqual([])
  })
})
