// What `ralph-loop status` shows of the guard (issue 39): the findings at the loop's last claim of
// done that it read, each with the key a user accepts it by, and whether it was accepted. Pure.
import { z } from "zod"
import { findingKey, findingText } from "./finding.js"
import { replayLine, replaySchema, type Replay } from "./replay-record.js"
import { acceptedSchema, refusedAcceptSchema, type Accepted, type RefusedAccept } from "./accepted.js"
import { acceptableKeys } from "./acceptance.js"
import { notVerifiedBecause, weakenedSchema, type Evidence, type Weakened } from "./record.js"

export const guardSummarySchema = z
  .object({
    iteration: z.int().min(1).nullable().describe("the iteration whose claim the guard read; null: none yet"),
    findings: z.array(weakenedSchema.extend({ key: z.string().describe("what guard.accept takes"), text: z.string() })),
    replay: replaySchema.nullable().describe("the replay of the start's tests at that claim; null: none ran"),
    acceptable: z
      .array(z.string())
      .describe("the keys of what refused that claim and is not accepted yet: what `ralph-loop accept` takes"),
    accepted: z.array(acceptedSchema).describe("what you accepted while the loop ran (ralph-loop accept, the TUI)"),
    refusedAccepts: z.array(refusedAcceptSchema).describe("accepts refused because a model's shell ran them"),
  })
  .nullable()
  .describe("what the guard found at the last claim of done it read, and what was accepted; null when neither")

export type GuardSummary = z.infer<typeof guardSummarySchema>

/** What the loop's state holds of the guard and of the user's accepts. */
export interface GuardState {
  guard?: { iteration: number; findings: readonly Weakened[]; replay?: Replay | undefined } | undefined
  accepted?: readonly Accepted[] | undefined
  refusedAccepts?: readonly RefusedAccept[] | undefined
}

export function guardSummary({ guard, accepted = [], refusedAccepts = [] }: GuardState): GuardSummary {
  if (!guard && accepted.length === 0 && refusedAccepts.length === 0) return null
  const had = new Set(accepted.map((a) => a.key))
  return {
    iteration: guard?.iteration ?? null,
    findings: (guard?.findings ?? []).map((f) => ({ ...f, key: findingKey(f), text: findingText(f) })),
    replay: guard?.replay ?? null,
    acceptable: acceptableKeys(guard).filter((k) => !had.has(k)),
    accepted: [...accepted],
    refusedAccepts: [...refusedAccepts],
  }
}

const acceptedBy = (f: Weakened): string => (f.acceptedBy === "you" ? "accepted by you" : "accepted")

/** The status text's lines for it (none when nothing was found or accepted). */
export function guardLines(guard: GuardSummary): string[] {
  if (!guard) return []
  return [
    ...(guard.findings.length > 0
      ? [
          `Guard (iteration ${guard.iteration}):`,
          ...guard.findings.map((f) => `  ${f.accepted ? acceptedBy(f) : "refuses"}: ${f.text} [${f.key}]`),
        ]
      : []),
    ...(guard.acceptable.length > 0
      ? ["What refused the last claim (ralph-loop accept takes these keys):", ...guard.acceptable.map((k) => `  ${k}`)]
      : []),
    ...guard.accepted.map((a) => `Accepted by you (${a.via}, ${a.at}): ${a.key}`),
    ...guard.refusedAccepts.map((r) => `Accept refused (${r.via}, ${r.at}): ${r.why}`),
  ]
}

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
  const accepted = (evidence.acceptedByYou ?? []).map((a) => `Accepted by you (${a.via}): ${a.key}`)
  return [
    `Evidence: ${evidenceVerdict(evidence)} · ${evidence.changedFiles.length} file(s) changed`,
    ...replay,
    ...accepted,
  ]
}

/** ralph_report.md's section: what the completion rested on, and the guard's findings at the last claim. */
export function reportEvidenceLines(evidence: Evidence | undefined, state: GuardState): string[] {
  const found = guardLines(guardSummary(state))
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
