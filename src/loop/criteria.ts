// Seed 004's CompletionCriteria: a completion claim is accepted only when the checks agree, and
// stagnation (no fewer issues for `stagnationLimit` check runs) stops the loop.
import type { LoopSettings } from "./loop.js"
import { issueCount, type CheckResult, type DiagnosticSnapshot } from "../checks/diagnostics.js"
import { checkFailures, isRest } from "../checks/failures/index.js"
import { hash } from "../checks/failures/text.js"

export type Criteria = Pick<LoopSettings, "zeroErrors" | "zeroWarnings" | "zeroSecurity" | "testsPass">

/**
 * What keeps the snapshot from meeting the criteria (empty: they hold). A check that did not pass
 * never meets them, whatever it counted: `eslint --max-warnings 0` fails on warnings alone, which
 * the criteria may not count, and a failing command the parser finds nothing in counts nothing.
 */
export function unmetCriteria(snapshot: DiagnosticSnapshot, criteria: Criteria): string[] {
  const unmet: string[] = []
  for (const check of snapshot.checks) {
    if (check.status === "timeout") unmet.push(`check "${check.name}" timed out and was killed`)
    if (check.status === "error") unmet.push(`check "${check.name}" could not run`)
    if (check.status === "missing") unmet.push(`check "${check.name}" could not run: its command was not found`)
    // A failure the counts below already name needs no line of its own.
    if (check.status === "failed" && countedUnmet({ ...check, securityIssues: check.security }, criteria).length === 0)
      unmet.push(
        `check "${check.name}" failed (${check.exitCode !== null ? `exit ${check.exitCode}` : "killed by a signal"})`,
      )
  }
  unmet.push(...countedUnmet(snapshot, criteria))
  return [...new Set(unmet)]
}

type Counts = Pick<DiagnosticSnapshot, "errors" | "warnings" | "securityIssues" | "testsFailed">

function countedUnmet(counts: Counts, criteria: Criteria): string[] {
  const unmet: string[] = []
  if (criteria.zeroErrors && counts.errors > 0) unmet.push(`${counts.errors} error(s)`)
  if (criteria.zeroWarnings && counts.warnings > 0) unmet.push(`${counts.warnings} warning(s)`)
  if (criteria.zeroSecurity && counts.securityIssues > 0) unmet.push(`${counts.securityIssues} security issue(s)`)
  if (criteria.testsPass && counts.testsFailed > 0) unmet.push(`${counts.testsFailed} test(s) failing`)
  return unmet
}

/** Every check passed and none reported an issue: nothing is left to fix, so nothing can stagnate. */
const clean = (s: DiagnosticSnapshot): boolean => issueCount(s) === 0 && s.checks.every((c) => c.status === "passed")

/** Check runs in a row, ending with the last, that still found something and in which the issue count did not fall. */
export function stagnantRuns(history: readonly DiagnosticSnapshot[]): number {
  let runs = 0
  for (let i = history.length - 1; i > 0; i -= 1) {
    const run = history[i] as DiagnosticSnapshot
    if (clean(run) || issueCount(run) < issueCount(history[i - 1] as DiagnosticSnapshot)) break
    runs += 1
  }
  return runs
}

/**
 * Seed 004's feedback line: `Ralph Loop: CONTINUE | Iteration 3/10 | 5 error(s) … | Progress: 45% improvement | Next:
 * …`.
 */
export function feedbackLine(
  iteration: number,
  max: number,
  unmet: string[],
  history: readonly DiagnosticSnapshot[],
  next: string,
): string {
  const first = history[0]
  const last = history.at(-1)
  let progress = "first check run"
  if (first && last && history.length > 1) {
    const before = issueCount(first)
    const now = issueCount(last)
    progress =
      before === 0
        ? now === 0
          ? "no issues"
          : `${now} new issue(s)`
        : `${Math.round(((before - now) / before) * 100)}% improvement`
  }
  return (
    `Ralph Loop: CONTINUE | Iteration ${iteration}/${max} | ${unmet.join(", ") || "checks pass"} | ` +
    `Progress: ${progress} | Next: ${next}`
  )
}

/**
 * Seed 004's COMPLETE line: `Ralph Loop: COMPLETE - All conditions satisfied | Session: … |
 * Iterations: 3 | Total improvement: 100% | Initial: 4 errors, 1 warnings | Final: 0 errors, 1 warnings`.
 * Initial: the checks before the first prompt where they ran then, else the first run. Failing
 * tests are named too (the seed's line has no place for them, and 100% of nothing would puzzle).
 */
export function completeLine(
  session: string,
  iterations: number,
  history: readonly DiagnosticSnapshot[],
  initial?: DiagnosticSnapshot,
): string {
  const first = initial ?? history[0]
  const last = history.at(-1)
  const counts = (s: DiagnosticSnapshot | undefined) =>
    `${s?.errors ?? 0} errors, ${s?.warnings ?? 0} warnings${s?.testsFailed ? `, ${s.testsFailed} tests failing` : ""}`
  const before = first ? issueCount(first) : 0
  const improvement =
    before === 0
      ? "no issues at the start"
      : `${Math.round(((before - (last ? issueCount(last) : 0)) / before) * 100)}%`
  return (
    `Ralph Loop: COMPLETE - All conditions satisfied | Session: ${session} | Iterations: ${iterations} | ` +
    `Total improvement: ${improvement} | Initial: ${counts(first)} | Final: ${counts(last)}`
  )
}

/** The failing checks' output, bounded, for the next prompt. */
export function failureReport(snapshot: DiagnosticSnapshot, perCheck = 1_500): string {
  return snapshot.checks
    .filter((c) => c.status !== "passed")
    .map(
      (c) =>
        `### ${c.name} (${c.kind}) — ` +
        `${c.status}` +
        `${c.exitCode !== null ? `, exit ${c.exitCode}` : ""}\n\n\`\`\`\n$ ${c.command}\n` +
        `${c.output.trim().slice(-perCheck)}\n\`\`\``,
    )
    .join("\n\n")
}

/**
 * A failing check as a key: its name and what failed in it (failures/index.ts) — never a timing, a banner or a line
 * number.
 */
const failureKey = (check: CheckResult): string => `${check.name}: ${checkFailures(check).join("; ")}`

const MAX_FINGERPRINT = 600

/**
 * The checks that failed, as one fingerprint for the breaker's same-error count (undefined: none failed); a long one
 * ends in a hash of the whole.
 */
export function failureFingerprint(snapshot: DiagnosticSnapshot | undefined): string | undefined {
  const keys =
    snapshot?.checks
      .filter((c) => c.status !== "passed")
      .map(failureKey)
      .sort() ?? []
  if (keys.length === 0) return undefined
  const whole = `checks failing: ${keys.join("; ")}`
  return whole.length <= MAX_FINGERPRINT ? whole : `${whole.slice(0, MAX_FINGERPRINT - 100)}… #${hash(whole)}`
}

/**
 * Failures that failed, were fixed, and fail again (A → B → A): a circular fix. Each is a check's
 * name and one of its failure identities (`tests: test_a.py::test_x`), so a test fixed while
 * another breaks is no circular fix. A run that did not finish (timed out, could not start) or a
 * check that did not run says nothing about what was fixed.
 */
export function recurringFailures(history: readonly DiagnosticSnapshot[]): string[] {
  const found = new Set<string>()
  const names = new Set(history.flatMap((s) => s.checks.map((c) => c.name)))
  for (const name of names) {
    const state = new Map<string, "failing" | "fixed">()
    for (const snapshot of history) {
      const check = snapshot.checks.find((c) => c.name === name)
      if (!check || (check.status !== "passed" && check.status !== "failed")) continue
      const failing = new Set(checkFailures(check))
      for (const [id, was] of state) if (was === "failing" && !failing.has(id)) state.set(id, "fixed")
      for (const id of failing) {
        if (state.get(id) === "fixed" && !isRest(id)) found.add(`${name}: ${id}`)
        state.set(id, "failing")
      }
    }
  }
  return [...found]
}
