// A parallel run's story done: what its plan note says comes from its worktree loop's evidence, as a
// story run alone gets, never from the checks' status alone — a check scoped to the task's @targets
// "passes" for the loop with a non-zero exit (issue 47: confirmed, and fixed).
import { describe, expect, it } from "vitest"
import type { CheckResult } from "../../src/checks/diagnostics.js"
import { evidenceOf, planNote } from "../../src/evidence/record.js"
import { scopeCheck } from "../../src/loop/targets.js"
import { doneNote } from "../../src/plan/write-back.js"
import { storyEnd } from "../../src/worktrees/parallel-run-job.js"
import { loop } from "./fixtures.js"

const lint: CheckResult = {
  name: "lint",
  kind: "lint",
  command: "eslint .",
  status: "failed",
  exitCode: 1,
  durationMs: 1,
  output: "",
  errors: 4,
  warnings: 0,
  info: 0,
  security: 0,
  testsRun: 0,
  testsFailed: 0,
  testsPassed: 0,
  files: [{ path: "src/other.ts", errors: 4, warnings: 0 }],
}

describe("a parallel story's end", () => {
  it("a check that failed only outside the targets (passed for the loop, exit 1): the note says not verified, as the evidence does", () => {
    const scoped = scopeCheck(lint, ["src/services/"])
    expect(scoped).toMatchObject({ status: "passed", exitCode: 1 })
    const evidence = evidenceOf({
      runs: [{ name: "lint", command: "eslint .", exitCode: 1, tests: null, outputSha256: "0".repeat(64), ranAt: 200 }],
      lastChangeAt: 100,
      changedFiles: ["src/services/a.ts"],
      review: null,
      weakened: [],
    })
    expect(evidence.verified).toBe(false)
    const snapshot = {
      iteration: 3,
      at: 200,
      errors: 0,
      warnings: 0,
      info: 0,
      securityIssues: 0,
      testsRun: 0,
      testsFailed: 0,
      testsPassed: 0,
      files: [],
      checks: [scoped],
    }
    const ended = loop({ phase: "stopped", stopReason: "completed", iteration: 3, snapshots: [snapshot], evidence })
    const end = storyEnd({ loop: ended, outcome: { result: "merged", detail: "merged into main" } })
    if (!("done" in end)) throw new Error("the story should be done")
    const note = doneNote({ id: "s1", ...end.done })
    expect(note).toBe(planNote(evidence, 3))
    expect(note).not.toMatch(/^Verified/)
  })
})
