// What `ralph-loop status` shows of the guard (issue 39): the findings at the loop's last claim of
// done that it read, each with the key a user accepts it by, and whether it was accepted. Pure.
import { z } from "zod"
import { findingKey, findingText } from "./finding.js"
import { replayLine } from "./replay-record.js"
import { notVerifiedBecause, weakenedSchema, type Evidence, type Weakened } from "./record.js"

export const guardSummarySchema = z
  .object({
    iteration: z.int().min(1).describe("the iteration whose claim the guard read"),
    findings: z.array(weakenedSchema.extend({ key: z.string().describe("what guard.accept takes"), text: z.string() })),
  })
  .nullable()
  .describe("what the guard found at the last claim of done it read; null when it read none")

export type GuardSummary = z.infer<typeof guardSummarySchema>

export const guardSummary = (guard: { iteration: number; findings: readonly Weakened[] } | undefined): GuardSummary =>
  guard
    ? {
        iteration: guard.iteration,
        findings: guard.findings.map((f) => ({ ...f, key: findingKey(f), text: findingText(f) })),
      }
    : null

/** The status text's lines for it (none when nothing was found). */
export const guardLines = (guard: GuardSummary): string[] =>
  guard && guard.findings.length > 0
    ? [
        `Guard (iteration ${guard.iteration}):`,
        ...guard.findings.map((f) => `  ${f.accepted ? "accepted" : "refuses"}: ${f.text} [${f.key}]`),
      ]
    : []

/** `unit 12 passed, 1 skipped` or `lint passed`: a check of the evidence in a few words. */
const checkPassedText = (c: Evidence["checks"][number]): string =>
  c.name + (c.tests ? ` ${c.tests.passed} passed${c.tests.skipped ? `, ${c.tests.skipped} skipped` : ""}` : " passed")

/** `verified — unit 12 passed` or `not verified: no check ran`: the evidence's verdict in a few words. */
export const evidenceVerdict = (evidence: Evidence): string =>
  evidence.verified
    ? `verified — ${evidence.checks.map(checkPassedText).join("; ")}`
    : `not verified: ${notVerifiedBecause(evidence)}`

/** What a completion rested on, in one line (none while the loop has no evidence). */
export function evidenceLines(evidence: Evidence | null | undefined): string[] {
  if (!evidence) return []
  const replay = evidence.replay ? [`Replay of the start's tests: ${replayLine(evidence.replay)}`] : []
  return [`Evidence: ${evidenceVerdict(evidence)} · ${evidence.changedFiles.length} file(s) changed`, ...replay]
}

/** ralph_report.md's section: what the completion rested on, and the guard's findings at the last claim. */
export function reportEvidenceLines(
  evidence: Evidence | undefined,
  guard: { iteration: number; findings: readonly Weakened[] } | undefined,
): string[] {
  const found = guardLines(guardSummary(guard))
  if (!evidence && found.length === 0) return []
  return [
    "## Evidence",
    "",
    ...evidenceLines(evidence),
    ...(evidence?.review ? [`Review: ${evidence.review.verdict}`] : []),
    ...found,
    "",
  ]
}
