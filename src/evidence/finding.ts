// What the guard found in the loop's changes since its start: its kind, the file, the test or script
// it concerns, and the exact line (or script, or count) before and after. Every kind refuses a claim
// of done except a changed expectation, which is listed in the evidence and given to the reviewer.
import { z } from "zod"

const FINDING_KINDS = [
  /** A test skipped or focused on an added line (`.skip`, `.only`, `xit`, `@pytest.mark.skip`, `t.Skip(` …). */
  "skip",
  /** A test function or case present at the start and gone now (not one whose name was added back elsewhere). */
  "removed-test",
  /** A check ran fewer tests than at its first run in the loop. */
  "fewer-tests",
  /** A package.json script that a check runs (or its pre/post script) changed. */
  "check-script",
  /** A runner's, linter's or type checker's config, or the loop's own checks, changed. */
  "check-config",
  /** A suppression added (`@ts-ignore`, `eslint-disable`, `# noqa`, `#[allow(…)]` …). */
  "suppression",
  /** An expectation in a test changed (`toBe(3)` → `toBe(0)`) or removed: listed, not refused. */
  "expectation",
] as const

export const findingSchema = z.object({
  kind: z.enum(FINDING_KINDS),
  /** The file, as the project names it (null: a check's test count, which no file holds). */
  file: z.string().nullable(),
  /** The test, the script, the check or the marker it concerns. */
  name: z.string().optional(),
  /** The line in the file: its number after the change for an added line, before it for a removed one. */
  line: z.int().min(1).optional(),
  /** The exact text before the change (null: there was none). */
  before: z.string().nullable(),
  /** The exact text after the change (null: it is gone). */
  after: z.string().nullable(),
})
export type Finding = z.infer<typeof findingSchema>

/** Whether a finding refuses a claim of done (a changed expectation is only listed). */
export const refuses = (finding: Pick<Finding, "kind">): boolean => finding.kind !== "expectation"

/** A finding's stable name, the same at every claim while the change is there: what a user accepts. */
export const findingKey = (f: Finding): string =>
  [f.kind, f.file ?? "", f.name ?? "", (f.after ?? f.before ?? "").trim()].join(":")

const quote = (text: string | null): string => (text === null ? "(none)" : `\`${text.trim()}\``)
const at = (f: Finding): string => `${f.file ?? ""}${f.line ? `:${f.line}` : ""}`
const beforeAfter = (f: Finding): string => `before ${quote(f.before)}, after ${quote(f.after)}`
const arrow = (f: Finding): string => `${quote(f.before)} → ${quote(f.after)}`

/** One line naming the finding precisely, for the next prompt, the journal and the report. */
export function findingText(f: Finding): string {
  switch (f.kind) {
    case "skip":
      return `${at(f)} skips or focuses a test (${f.name}): ${quote(f.after)}`
    case "removed-test":
      return `the test ${f.name} was removed from ${at(f)}: ${quote(f.before)}`
    case "fewer-tests":
      return `check ${f.name} ran fewer tests than at its first run: ${f.before}, now ${f.after}`
    case "check-script":
      return `the "${f.name}" script in ${f.file}, which a check runs, changed: ${beforeAfter(f)}`
    case "check-config":
      return `${f.file}, which the checks read (${f.name}), changed: ${beforeAfter(f)}`
    case "suppression":
      return `${at(f)} adds a suppression (${f.name}): ${quote(f.after)}`
    case "expectation":
      return `an expectation in ${at(f)}${f.name ? ` (${f.name})` : ""} changed: ${arrow(f)}`
  }
}
