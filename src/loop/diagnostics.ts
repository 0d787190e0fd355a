// Seed 004's DiagnosticSnapshot: what the checks found after an iteration, parsed into counts.
import { z } from "zod"
import { CHECK_KINDS, type CheckKind } from "../config/schema.js"

const count = z.int().min(0)

export const fileDetailSchema = z.object({ path: z.string(), errors: count, warnings: count })
export type FileDetail = z.infer<typeof fileDetailSchema>

export const checkStatusSchema = z.enum(["passed", "failed", "timeout", "missing", "error"])
export type CheckStatus = z.infer<typeof checkStatusSchema>

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
})
export type CheckResult = z.infer<typeof checkResultSchema>

export const diagnosticSnapshotSchema = z.object({
  iteration: z.int().min(1),
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

/** Counts a check's output by its kind. Tool formats: tsc, ESLint, vitest/jest, pytest, node --test, ruff, ast-grep. */
export function parseCheckOutput(kind: CheckKind, output: string, exitCode: number | null): Pick<CheckResult, "errors" | "warnings" | "info" | "security" | "testsRun" | "testsFailed" | "testsPassed" | "files"> {
  const counts = { errors: 0, warnings: 0, info: 0, security: 0, testsRun: 0, testsFailed: 0, testsPassed: 0, files: [] as FileDetail[] }
  const failedExit = exitCode !== 0
  const text = output.replace(/\x1b\[[0-9;]*m/g, "")
  const files = new Map<string, FileDetail>()
  const fileHit = (path: string, field: "errors" | "warnings") => {
    const detail = files.get(path) ?? { path, errors: 0, warnings: 0 }
    detail[field] += 1
    files.set(path, detail)
  }
  if (kind === "test") {
    const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN)
    const failed = [n(/Tests\s+(\d+) failed/), n(/Tests:\s+(\d+) failed/), n(/(\d+) failed/), n(/^# fail (\d+)/m), n(/(\d+) failing/)].find(Number.isFinite)
    const passed = [n(/Tests\s+(?:\d+ failed \| )?(\d+) passed/), n(/Tests:\s+(?:\d+ failed, )?(\d+) passed/), n(/(\d+) passed/), n(/^# pass (\d+)/m), n(/(\d+) passing/)].find(Number.isFinite)
    counts.testsFailed = failed ?? (failedExit ? 1 : 0)
    counts.testsPassed = passed ?? 0
    if (failedExit && counts.testsFailed === 0) counts.testsFailed = 1
    counts.testsRun = counts.testsFailed + counts.testsPassed
    return counts
  }
  for (const line of text.split("\n")) {
    const tsc = /^(.+?)\(\d+,\d+\): (error|warning) TS\d+/.exec(line)
    if (tsc?.[1]) fileHit(tsc[1], tsc[2] === "error" ? "errors" : "warnings")
    const colon = /^(.+?):\d+:\d+:?\s+(?:-\s+)?(error|warning)\b/i.exec(line)
    if (!tsc && colon?.[1]) fileHit(colon[1], colon[2]?.toLowerCase() === "error" ? "errors" : "warnings")
  }
  counts.files = [...files.values()]
  const eslint = /(\d+) problems? \((\d+) errors?, (\d+) warnings?\)/.exec(text)
  if (eslint) {
    counts.errors = Number(eslint[2])
    counts.warnings = Number(eslint[3])
  } else {
    const tscErrors = (text.match(/\berror TS\d+/g) ?? []).length
    const found = /Found (\d+) errors?/.exec(text)
    counts.errors = tscErrors || Number(found?.[1] ?? 0) || counts.files.reduce((sum, f) => sum + f.errors, 0) || (text.match(/^error(\[|:)/gm) ?? []).length
    counts.warnings = counts.files.reduce((sum, f) => sum + f.warnings, 0) || (text.match(/^warning(\[|:)/gm) ?? []).length
  }
  if (failedExit && counts.errors === 0 && counts.warnings === 0) counts.errors = 1
  if (kind === "security") {
    counts.security = counts.errors + counts.warnings
    counts.errors = 0
    counts.warnings = 0
  }
  return counts
}

export function snapshotOf(iteration: number, at: number, checks: CheckResult[]): DiagnosticSnapshot {
  const sum = (field: "errors" | "warnings" | "info" | "security" | "testsRun" | "testsFailed" | "testsPassed") => checks.reduce((n, c) => n + c[field], 0)
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
  return kept.map((s, i) => (i === kept.length - 1 ? s : { ...s, checks: s.checks.map((c) => ({ ...c, output: c.output.slice(-1024) })) }))
}
