// The test counts the guard compares (issue 39): a check's first run the loop still holds against
// this claim's run — so a check that ran fewer tests than at first is a finding.
import { describe, expect, it } from "vitest"
import { testsOf } from "../../src/engine/jobs/guard.js"
import { fewerTests } from "../../src/evidence/guard.js"
import { snapshotOf, type CheckResult } from "../../src/checks/diagnostics.js"
import { loop } from "./fixtures.js"

const run = (passed: number, failed: number, tests = true): CheckResult => ({
  name: "unit",
  kind: "test",
  command: "npm test",
  status: failed ? "failed" : "passed",
  exitCode: failed ? 1 : 0,
  durationMs: 1,
  output: "",
  errors: 0,
  warnings: 0,
  info: 0,
  security: 0,
  testsRun: passed + failed,
  testsFailed: failed,
  testsPassed: passed,
  files: [],
  ...(tests ? { tests: { passed, failed, skipped: 0 } } : {}),
})

describe("the guard's test counts", () => {
  it("the first run with counts is the baseline; this claim's run is now", () => {
    const l = loop({
      snapshots: [snapshotOf(1, 1, [run(0, 0, false)]), snapshotOf(2, 2, [run(3, 2)]), snapshotOf(3, 3, [run(5, 0)])],
    })
    const counts = testsOf(l, "unit", snapshotOf(4, 4, [run(4, 0)]))
    expect(counts).toEqual({ first: { passed: 3, failed: 2, skipped: 0 }, now: { passed: 4, failed: 0, skipped: 0 } })
    expect(fewerTests({ name: "unit", ...counts })).toMatchObject({
      kind: "fewer-tests",
      before: "5 tests ran",
      after: "4 tests ran",
    })
  })

  it("nothing to compare without counts, and the run before the first prompt counts first", () => {
    expect(testsOf(loop(), "unit", undefined)).toEqual({ first: null, now: null })
    const l = loop({ initialChecks: snapshotOf(0, 0, [run(2, 1)]), snapshots: [snapshotOf(1, 1, [run(1, 0)])] })
    expect(testsOf(l, "unit", snapshotOf(2, 2, [run(3, 0)])).first).toEqual({ passed: 2, failed: 1, skipped: 0 })
  })
})
