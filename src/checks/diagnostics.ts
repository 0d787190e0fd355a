// Seed 004's DiagnosticSnapshot: what the checks found after an iteration, parsed into counts.
import { z } from "zod"
import { CHECK_KINDS, type CheckKind } from "../config/schema.js"
import { failureIdentities } from "./failures/index.js"
import { findingsOf, mentionedFiles } from "./findings.js"
import { testCountsSchema, type TestCounts } from "./test-counts.js"

const count = z.int().min(0)

const fileDetailSchema = z.object({ path: z.string(), errors: count, warnings: count })
type FileDetail = z.infer<typeof fileDetailSchema>

const checkStatusSchema = z.enum(["passed", "failed", "timeout", "missing", "error"])

export const checkResultSchema = z.object({
  name: z.string(),
  kind: z.enum(CHECK_KINDS),
  command: z.string(),
  status: checkStatusSchema,
  exitCode: z.int().nullable(),
  durationMs: z.number(),
  /** The end of the output (bounded). */
  output: z.string(),
  errors: count,
  warnings: count,
  info: count,
  security: count,
  testsRun: count,
  testsFailed: count,
  testsPassed: count,
  files: z.array(fileDetailSchema),
  /** Files a failing output names, counted or not (`src/a.js: error: file missing`): what its gotcha concerns. */
  mentioned: z.array(z.string()).optional(),
  /** What failed, as stable identities read from the whole output (failures/index.ts); older saved runs have none. */
  failures: z.array(z.string()).optional(),
  /** The tests it ran, from the runner's own summary in the whole output (null: none found; absent: an older run). */
  tests: testCountsSchema.nullable().optional(),
  /** sha256 of the whole output, hex (absent: an older run). */
  outputSha256: z.string().optional(),
})
export type CheckResult = z.infer<typeof checkResultSchema>

export const diagnosticSnapshotSchema = z.object({
  /** 0: a criteria loop's run before its first prompt. */
  iteration: z.int().min(0),
  at: z.number(),
  errors: count,
  warnings: count,
  info: count,
  securityIssues: count,
  testsRun: count,
  testsFailed: count,
  testsPassed: count,
  files: z.array(fileDetailSchema),
  checks: z.array(checkResultSchema),
})
export type DiagnosticSnapshot = z.infer<typeof diagnosticSnapshotSchema>

/**
 * Counts a check's output by its kind. Tool formats: tsc, ESLint (stylish, unix, json), ruff,
 * vitest/jest, pytest, node --test, ast-grep. `directory`: the project, to make absolute paths in
 * the output relative (ESLint prints them).
 */
export function parseCheckOutput(
  kind: CheckKind,
  output: string,
  exitCode: number | null,
  directory?: string,
): Pick<
  CheckResult,
  | "errors"
  | "warnings"
  | "info"
  | "security"
  | "testsRun"
  | "testsFailed"
  | "testsPassed"
  | "files"
  | "mentioned"
  | "failures"
> {
  const counts = {
    errors: 0,
    warnings: 0,
    info: 0,
    security: 0,
    testsRun: 0,
    testsFailed: 0,
    testsPassed: 0,
    files: [] as FileDetail[],
  }
  const failedExit = exitCode !== 0
  const text = output.replace(/\x1b\[[0-9;]*m/g, "")
  const failing = failedExit
    ? { mentioned: mentionedFiles(text, directory), failures: failureIdentities(output, directory) }
    : {}
  if (kind === "test") {
    const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN)
    // A count with nothing before it is read only from where its digits begin (`(?<!\d)`): from every
    // digit, a long run of them was read to its end once per digit.
    const failed = [
      n(/Tests\s+(\d+) failed/),
      n(/Tests:\s+(\d+) failed/),
      n(/(?<!\d)(\d+) failed/),
      n(/^# fail (\d+)/m),
      n(/(?<!\d)(\d+) failing/),
    ].find(Number.isFinite)
    const passed = [
      n(/Tests\s+(?:\d+ failed \| )?(\d+) passed/),
      n(/Tests:\s+(?:\d+ failed, )?(\d+) passed/),
      n(/(?<!\d)(\d+) passed/),
      n(/^# pass (\d+)/m),
      n(/(?<!\d)(\d+) passing/),
    ].find(Number.isFinite)
    counts.testsFailed = failed ?? (failedExit ? 1 : 0)
    counts.testsPassed = passed ?? 0
    if (failedExit && counts.testsFailed === 0) counts.testsFailed = 1
    counts.testsRun = counts.testsFailed + counts.testsPassed
    return { ...counts, ...failing }
  }
  const findings = findingsOf(text, directory)
  const files = new Map<string, FileDetail>()
  for (const f of findings) {
    if (f.severity === "info") continue
    const detail = files.get(f.path) ?? { path: f.path, errors: 0, warnings: 0 }
    detail[f.severity === "error" ? "errors" : "warnings"] += 1
    files.set(f.path, detail)
  }
  counts.files = [...files.values()]
  const eslint = /(?<!\d)(\d+) problems? \((\d+) errors?, (\d+) warnings?\)/.exec(text)
  const tally = (severity: string) => findings.filter((f) => f.severity === severity).length
  if (eslint) {
    counts.errors = Number(eslint[2])
    counts.warnings = Number(eslint[3])
  } else if (findings.length > 0) {
    counts.errors = tally("error")
    counts.warnings = tally("warning")
    counts.info = tally("info")
  } else {
    const tscErrors = (text.match(/\berror TS\d+/g) ?? []).length
    const found = /Found (\d+) errors?/.exec(text)
    counts.errors = tscErrors || Number(found?.[1] ?? 0) || (text.match(/^error(\[|:)/gm) ?? []).length
    counts.warnings = (text.match(/^warning(\[|:)/gm) ?? []).length
  }
  if (failedExit && counts.errors === 0 && counts.warnings === 0) counts.errors = 1
  if (kind === "security") {
    counts.security = counts.errors + counts.warnings
    counts.errors = 0
    counts.warnings = 0
  }
  return { ...counts, ...failing }
}

export function snapshotOf(iteration: number, at: number, checks: CheckResult[]): DiagnosticSnapshot {
  const sum = (field: "errors" | "warnings" | "info" | "security" | "testsRun" | "testsFailed" | "testsPassed") =>
    checks.reduce((n, c) => n + c[field], 0)
  const broken = checks.filter((c) => c.status === "timeout" || c.status === "error").length
  return {
    iteration,
    at,
    errors: sum("errors") + broken,
    warnings: sum("warnings"),
    info: sum("info"),
    securityIssues: sum("security"),
    testsRun: sum("testsRun"),
    testsFailed: sum("testsFailed"),
    testsPassed: sum("testsPassed"),
    files: checks.flatMap((c) => c.files),
    checks,
  }
}

/** Everything that counts as an open issue, for stagnation and progress. */
export const issueCount = (s: DiagnosticSnapshot): number => s.errors + s.warnings + s.securityIssues + s.testsFailed

/** The history kept with a loop: the newest snapshot whole, older ones with their output cut to 1 KB. */
export function keepHistory(history: readonly DiagnosticSnapshot[], limit = 20): DiagnosticSnapshot[] {
  const kept = history.slice(-limit)
  return kept.map((s, i) =>
    i === kept.length - 1 ? s : { ...s, checks: s.checks.map((c) => ({ ...c, output: c.output.slice(-1024) })) },
  )
}

/**
 * A check that reported its runner's test counts at its first run in the loop and reports none now has
 * not passed (issue 46): its output was hidden, or its tests no longer run.
 */
export function summaryKept(result: CheckResult, first: TestCounts | null): CheckResult {
  if (result.status !== "passed" || first === null || result.tests !== null) return result
  const ran = first.passed + first.failed
  const note = `[exit code 0, but no runner's summary: it reported ${ran} test${ran === 1 ? "" : "s"} at its first run]`
  return {
    ...result,
    status: "failed",
    output: `${result.output}\n${note}`,
    failures: ["its runner's summary is gone"],
  }
}
