// The guard's findings for one claim of done: what the diff since the loop's start shows (scan.ts),
// the package.json scripts the checks run (scripts.ts), and each check's test count against its
// first run in the loop. Pure: the caller reads the diff, the two package.json texts and the counts.
import { findingKey, type Finding } from "./finding.js"
import { scanFiles, type FileTexts } from "./scan.js"
import { changedCheckScripts } from "./scripts.js"
import { parseDiff, pathOf } from "./diff.js"
import { testsRun, type TestCounts } from "../checks/test-counts.js"

export interface CheckCounts {
  name: string
  command: string
  /** The tests it ran at its first run in the loop (null: no runner's count in its output). */
  first: TestCounts | null
  /** The tests it ran at its last run. */
  now: TestCounts | null
}

export interface GuardInput {
  /** `git diff` from the loop's start checkpoint to now (renames found or not). */
  diff: string
  /** Whole texts of the files needsWholeText names, before and after, when the diff touches them. */
  texts?: FileTexts
  checks?: readonly CheckCounts[]
  /** The project's package.json at the start checkpoint and now (null: none), when the diff touches it. */
  packageJson?: { before: string | null; after: string | null }
}

const plural = (n: number) => `${n} ${n === 1 ? "test" : "tests"} ran`

/** A check that ran fewer tests (passed or failed) than at its first run: a test skipped, removed or not found. */
export function fewerTests(check: Pick<CheckCounts, "name" | "first" | "now">): Finding | undefined {
  if (!check.first || !check.now || testsRun(check.now) >= testsRun(check.first)) return undefined
  const [before, after] = [plural(testsRun(check.first)), plural(testsRun(check.now))]
  return { kind: "fewer-tests", file: null, name: check.name, before, after }
}

/** Every finding, each once, in the diff's order, then the scripts, then the counts. */
export function guardFindings(input: GuardInput): Finding[] {
  const files = parseDiff(input.diff)
  const findings = scanFiles(files, input.texts)
  const touchesPackage = files.some((f) => pathOf(f) === "package.json" || f.oldPath === "package.json")
  const scripts = input.packageJson
  if (scripts && touchesPackage)
    for (const check of input.checks ?? []) {
      findings.push(...changedCheckScripts(check.command, scripts.before, scripts.after))
    }
  for (const check of input.checks ?? []) {
    const fewer = fewerTests(check)
    if (fewer) findings.push(fewer)
  }
  const seen = new Set<string>()
  return findings.filter((f) => {
    const key = findingKey(f)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
