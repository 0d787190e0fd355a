import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCheck } from "../../src/checks/run-checks.js"
import { detectChecks } from "../../src/checks/detect-checks.js"
import {
  failureFingerprint,
  feedbackLine,
  recurringFailures,
  stagnantRuns,
  unmetCriteria,
} from "../../src/loop/criteria.js"
import { parseCheckOutput, snapshotOf, type CheckResult } from "../../src/checks/diagnostics.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const dir = () => tempDir("ralph-checks-")

describe("parsing check output", () => {
  it("tsc: errors per file", () => {
    const out =
      "src/a.ts(3,5): error TS2322: Type 'x'.\nsrc/a.ts(9,1): error TS2304: Cannot find.\nsrc/b.ts(1,1): error TS1005: ';' expected.\nFound 3 errors in 2 files."
    const counts = parseCheckOutput("typecheck", out, 2)
    expect(counts.errors).toBe(3)
    expect(counts.files).toEqual([
      { path: "src/a.ts", errors: 2, warnings: 0 },
      { path: "src/b.ts", errors: 1, warnings: 0 },
    ])
  })
  it("ESLint summary: errors and warnings", () => {
    expect(parseCheckOutput("lint", "✖ 7 problems (2 errors, 5 warnings)", 1)).toMatchObject({ errors: 2, warnings: 5 })
    expect(parseCheckOutput("lint", "src/x.ts:1:1: warning unused thing", 0)).toMatchObject({ errors: 0, warnings: 1 })
  })
  it("test runners: vitest, jest, pytest, node --test; a failing exit with no counts is one failure", () => {
    expect(parseCheckOutput("test", "      Tests  2 failed | 40 passed (42)", 1)).toMatchObject({
      testsFailed: 2,
      testsPassed: 40,
      testsRun: 42,
    })
    expect(parseCheckOutput("test", "Tests:       1 failed, 9 passed, 10 total", 1)).toMatchObject({
      testsFailed: 1,
      testsPassed: 9,
    })
    expect(parseCheckOutput("test", "===== 3 failed, 12 passed in 0.5s =====", 1)).toMatchObject({
      testsFailed: 3,
      testsPassed: 12,
    })
    expect(parseCheckOutput("test", "# pass 5\n# fail 0", 0)).toMatchObject({ testsFailed: 0, testsPassed: 5 })
    expect(parseCheckOutput("test", "boom", 1)).toMatchObject({ testsFailed: 1 })
    expect(parseCheckOutput("typecheck", "something broke", 1)).toMatchObject({ errors: 1 })
  })
})

describe("running checks", () => {
  it("passes and fails by exit code, with the output kept", async () => {
    const cwd = dir()
    const pass = await runCheck({ name: "ok", command: "echo fine", kind: "test" }, cwd)
    expect(pass).toMatchObject({ status: "passed", exitCode: 0, testsFailed: 0 })
    const fail = await runCheck({ name: "bad", command: "echo 'FAIL: nope'; exit 3", kind: "test" }, cwd)
    expect(fail).toMatchObject({ status: "failed", exitCode: 3, testsFailed: 1 })
    expect(fail.output).toContain("FAIL: nope")
  })
  it("kills a hanging check and its children at the timeout", async () => {
    const cwd = dir()
    const started = Date.now()
    const hung = await runCheck(
      { name: "hang", command: "sleep 30 & sleep 30", kind: "test", timeoutSeconds: 0.5 },
      cwd,
    )
    expect(hung.status).toBe("timeout")
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(hung.output).toContain("killed after 0.5 s")
  })
  it("reports a missing tool instead of crashing", async () => {
    const missing = await runCheck({ name: "nope", command: "definitely-not-a-tool-xyz --flag", kind: "lint" }, dir())
    expect(missing.status).toBe("missing")
  })
  it("detects checks only when their tool is there", () => {
    const cwd = dir()
    writeFileSync(join(cwd, "tsconfig.json"), "{}")
    writeFileSync(join(cwd, "package.json"), JSON.stringify({ scripts: { test: "vitest run" } }))
    const found = detectChecks(cwd)
    expect(found.map((c) => c.name)).toEqual(["test"]) // no node_modules/.bin/tsc here
    writeFileSync(
      join(cwd, "package.json"),
      JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
    )
    expect(detectChecks(cwd)).toEqual([])
  })
})

describe("completion criteria", () => {
  const result = (over: Partial<CheckResult>): CheckResult => ({
    name: "c",
    kind: "lint",
    command: "c",
    status: "passed",
    exitCode: 0,
    durationMs: 1,
    output: "",
    errors: 0,
    warnings: 0,
    info: 0,
    security: 0,
    testsRun: 0,
    testsFailed: 0,
    testsPassed: 0,
    files: [],
    ...over,
  })
  const criteria = { zeroErrors: true, zeroWarnings: false, zeroSecurity: false, testsPass: true }
  it("warnings block only with zeroWarnings", () => {
    const snap = snapshotOf(1, 0, [result({ warnings: 2 })])
    expect(unmetCriteria(snap, criteria)).toEqual([])
    expect(unmetCriteria(snap, { ...criteria, zeroWarnings: true })).toEqual(["2 warning(s)"])
  })
  it("errors, failing tests, timeouts and missing tools block", () => {
    const snap = snapshotOf(1, 0, [
      result({ errors: 1, status: "failed" }),
      result({ kind: "test", testsFailed: 2, status: "failed" }),
      result({ name: "t", status: "timeout" }),
      result({ name: "m", status: "missing" }),
    ])
    expect(unmetCriteria(snap, criteria)).toEqual([
      'check "t" timed out and was killed',
      'check "m" could not run: its command was not found',
      "2 error(s)",
      "2 test(s) failing",
    ])
  })
  it("a check that failed never meets them, whatever it counted (eslint --max-warnings 0 on warnings alone)", async () => {
    // Found in use: the failing lint counted only warnings, so the claim was accepted under zeroWarnings: false.
    const lint = await runCheck(
      {
        name: "lint",
        command:
          "echo 'src/a.ts:3:1: warning unused variable x'; echo '✖ 1 problem (0 errors, 1 warning)'; echo 'ESLint found too many warnings (maximum: 0).'; exit 1",
        kind: "lint",
      },
      dir(),
    )
    expect(lint).toMatchObject({ status: "failed", errors: 0, warnings: 1 })
    expect(unmetCriteria(snapshotOf(1, 0, [lint]), criteria)).toEqual(['check "lint" failed (exit 1)'])
    // Even with every criterion off, and with no count at all (a signal, say).
    const off = { zeroErrors: false, zeroWarnings: false, zeroSecurity: false, testsPass: false }
    expect(
      unmetCriteria(
        snapshotOf(1, 0, [result({ name: "t", kind: "test", status: "failed", exitCode: 1, testsFailed: 1 })]),
        off,
      ),
    ).toEqual(['check "t" failed (exit 1)'])
    expect(unmetCriteria(snapshotOf(1, 0, [result({ status: "failed", exitCode: null })]), off)).toEqual([
      'check "c" failed (killed by a signal)',
    ])
    // A failure the criteria count already is named once, by its counts.
    expect(unmetCriteria(snapshotOf(1, 0, [lint]), { ...criteria, zeroWarnings: true })).toEqual(["1 warning(s)"])
  })
  it("stagnation counts runs in a row without fewer issues; the feedback line is seed 004's", () => {
    const s = (errors: number) => snapshotOf(1, 0, [result({ errors })])
    expect(stagnantRuns([s(5), s(3), s(3), s(4)])).toBe(2)
    expect(stagnantRuns([s(5), s(3)])).toBe(0)
    // Passing checks run every iteration (checkAfter "iteration") are not stagnation: nothing is left to fix.
    // Found by the soak: a loop with a passing check stopped "stagnation" at its 6th iteration.
    expect(stagnantRuns(Array.from({ length: 8 }, () => s(0)))).toBe(0)
    expect(stagnantRuns([s(0), s(0), s(2), s(2)])).toBe(2)
    const failedWithoutCount = snapshotOf(1, 0, [result({ status: "failed", exitCode: 1 })])
    expect(stagnantRuns([failedWithoutCount, failedWithoutCount, failedWithoutCount])).toBe(2)
    expect(feedbackLine(3, 10, ["5 error(s)"], [s(10), s(5)], "fix them")).toBe(
      "Ralph Loop: CONTINUE | Iteration 3/10 | 5 error(s) | Progress: 50% improvement | Next: fix them",
    )
  })
})

describe("check history", () => {
  it("keeps the newest snapshot whole and cuts older outputs, at most 20", async () => {
    const { keepHistory } = await import("../../src/checks/diagnostics.js")
    const snap = (i: number) =>
      snapshotOf(i, 0, [
        {
          name: "t",
          kind: "test",
          command: "t",
          status: "failed",
          exitCode: 1,
          durationMs: 1,
          output: "z".repeat(16_000),
          errors: 0,
          warnings: 0,
          info: 0,
          security: 0,
          testsRun: 1,
          testsFailed: 1,
          testsPassed: 0,
          files: [],
        },
      ])
    const kept = keepHistory(Array.from({ length: 25 }, (_, i) => snap(i)))
    expect(kept).toHaveLength(20)
    expect(kept[0]?.iteration).toBe(5)
    expect(kept.at(-1)?.checks[0]?.output).toHaveLength(16_000)
    expect(kept.at(-2)?.checks[0]?.output).toHaveLength(1024)
  })
})

describe("failing checks as keys: what failed, not where", () => {
  const failing = (iteration: number, output: string) =>
    snapshotOf(iteration, 0, [
      {
        name: "types",
        kind: "typecheck",
        command: "tsc",
        status: output ? "failed" : "passed",
        exitCode: output ? 2 : 0,
        durationMs: 1,
        output,
        errors: output ? 1 : 0,
        warnings: 0,
        info: 0,
        security: 0,
        testsRun: 0,
        testsFailed: 0,
        testsPassed: 0,
        files: [],
      },
    ])
  it("the same error moved by an edit above it is the same failure, for the breaker and for circular fixes", () => {
    const a = failing(1, "src/a.ts(3,5): error TS2322: Type 'x' is not assignable")
    const b = failing(3, "src/a.ts(9,1): error TS2322: Type 'x' is not assignable")
    expect(failureFingerprint(a)).toBe("checks failing: types: src/a.ts TS2322: Type 'x' is not assignable")
    expect(failureFingerprint(a)).toBe(failureFingerprint(b))
    // An output no parser knows is identified whole, its numbers folded: the words tell failures apart.
    expect(failureFingerprint(failing(1, "src/a.ts:3:5 - error: line 3 column 5 broke"))).toBe(
      failureFingerprint(failing(1, "src/a.ts:40:2 - error: line 40 column 2 broke")),
    )
    expect(failureFingerprint(failing(1, "expected 3 to be 4"))).toBe(
      failureFingerprint(failing(1, "expected 5 to be 6")),
    )
    expect(failureFingerprint(failing(1, "expected 3 to be 4"))).not.toBe(
      failureFingerprint(failing(1, "cannot read 'x' of undefined")),
    )
    expect(failureFingerprint(failing(2, ""))).toBeUndefined()
    expect(recurringFailures([a, failing(2, ""), b])).toEqual(["types: src/a.ts TS2322: Type 'x' is not assignable"])
  })
})
