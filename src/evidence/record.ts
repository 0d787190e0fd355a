// The evidence a completion (or a story done) rests on: the checks that ran after the last change,
// with their exit codes and test counts; the files the loop changed; the reviewer's verdict; what
// the guard found. `verified` only when a check passed after the last change, none failed, and no
// finding of the guard stands. And the plan write-back's words, which say no more than that. Pure.
import { z } from "zod"
import { findingKey, findingSchema, refuses, type Finding } from "./finding.js"
import { testCountsSchema } from "../checks/test-counts.js"
import { acceptedSchema, type Accepted } from "./accepted.js"
import { outsideReplay, replaySchema, replayVerdict, type Replay } from "./replay-record.js"

const evidenceCheckSchema = z.object({
  name: z.string(),
  command: z.string(),
  /** Null: it did not exit (timed out, could not start). */
  exitCode: z.int().nullable(),
  /** From the runner's own summary; null where no runner's summary was in the output. */
  tests: testCountsSchema.nullable(),
  /** sha256 of the whole output, hex. */
  outputSha256: z.string(),
  /** When it ran (ms). */
  ranAt: z.number(),
})
export type EvidenceCheck = z.infer<typeof evidenceCheckSchema>

const reviewEvidenceSchema = z.object({ verdict: z.enum(["approve", "reject"]), reasons: z.array(z.string()) })

/** A guard finding as the evidence keeps it: accepted by the user (for this claim or the loop), or standing. */
export const weakenedSchema = findingSchema.extend({
  accepted: z.boolean(),
  /** Who accepted it: guard.accept in the settings the loop began with, or you while it ran (ralph-loop accept). */
  acceptedBy: z.enum(["settings", "you"]).optional(),
})
export type Weakened = z.infer<typeof weakenedSchema>

export const evidenceSchema = z.object({
  verified: z.boolean(),
  checks: z.array(evidenceCheckSchema),
  /** The user's files the loop changed (never the plugin's own writes). */
  changedFiles: z.array(z.string()),
  /** The reviewer's verdict; null when there was no review. */
  review: reviewEvidenceSchema.nullable(),
  weakened: z.array(weakenedSchema),
  /** The replay of the start's tests on the end's code (issue 46); null or absent: none ran (guard off, older). */
  replay: replaySchema.nullable().optional(),
  /** What you accepted while the loop ran (ralph-loop accept, the TUI); absent: nothing. */
  acceptedByYou: z.array(acceptedSchema).optional(),
})
export type Evidence = z.infer<typeof evidenceSchema>

/** A finding stands when it refuses a claim and the user has not accepted it. */
export const stands = (finding: Weakened): boolean => refuses(finding) && !finding.accepted

/** The findings with whether each was accepted (by its findingKey), in the settings or by you while the loop ran. */
export function weakenedOf(
  findings: readonly Finding[],
  inSettings: ReadonlySet<string>,
  byYou: ReadonlySet<string> = new Set(),
): Weakened[] {
  return findings.map((f) => {
    const key = findingKey(f)
    const by = byYou.has(key) ? "you" : inSettings.has(key) ? "settings" : undefined
    return by === undefined ? { ...f, accepted: false } : { ...f, accepted: true, acceptedBy: by }
  })
}

/** Exit 0, and no failed test in its runner's own summary (issue 46). */
const checkPassed = (c: EvidenceCheck): boolean => c.exitCode === 0 && !(c.tests && c.tests.failed > 0)

/**
 * A check passed after the last change and none failed since; and the replay proved it (the start's tests
 * passed on the end's code, or the loop changed none of them), or, with no replay, nothing the guard found stands.
 */
function isVerified(checks: readonly EvidenceCheck[], weakened: readonly Weakened[], replay: Replay | null): boolean {
  if (checks.length === 0 || !checks.every(checkPassed)) return false
  if (!replay) return !weakened.some(stands)
  return replayVerdict(replay) === "proven" && !weakened.some((w) => stands(w) && outsideReplay(w))
}

export interface EvidenceInput {
  /** Every check run the loop recorded, in any order. */
  runs: readonly EvidenceCheck[]
  /** When the loop last changed a file (ms); null when it changed none (then every run counts). */
  lastChangeAt: number | null
  changedFiles: readonly string[]
  review: z.infer<typeof reviewEvidenceSchema> | null
  weakened: readonly Weakened[]
  replay?: Replay | null | undefined
  acceptedByYou?: readonly Accepted[] | undefined
}

/** The evidence record: each check's last run at or after the last change. */
export function evidenceOf(input: EvidenceInput): Evidence {
  const latest = new Map<string, EvidenceCheck>()
  for (const run of input.runs) {
    if (input.lastChangeAt !== null && run.ranAt < input.lastChangeAt) continue
    const kept = latest.get(run.name)
    if (!kept || run.ranAt >= kept.ranAt) latest.set(run.name, run)
  }
  const checks = [...latest.values()].sort((a, b) => a.ranAt - b.ranAt || a.name.localeCompare(b.name))
  const weakened = [...input.weakened]
  const changedFiles = [...input.changedFiles].sort()
  const replay = input.replay ?? null
  const verified = isVerified(checks, weakened, replay)
  const acceptedByYou = input.acceptedByYou?.length ? { acceptedByYou: [...input.acceptedByYou] } : {}
  return {
    verified,
    checks,
    changedFiles,
    review: input.review,
    weakened,
    ...(replay ? { replay } : {}),
    ...acceptedByYou,
  }
}

/** `unit 12 passed`, `unit 12 passed, 1 skipped`, `lint passed`. */
function passedText(check: EvidenceCheck): string {
  if (!check.tests) return `${check.name} passed`
  const skipped = check.tests.skipped > 0 ? `, ${check.tests.skipped} skipped` : ""
  return `${check.name} ${check.tests.passed} passed${skipped}`
}

/** Why the evidence is not verified, in a few words. */
export function notVerifiedBecause(evidence: Evidence): string {
  if (evidence.checks.length === 0) return "no check ran"
  const reasons: string[] = []
  const failed = evidence.checks.filter((c) => !checkPassed(c))
  if (failed.length > 0) reasons.push(`${failed.map((c) => c.name).join(", ")} failed`)
  const replay = evidence.replay
  if (replay) {
    const why = replayReason(replay)
    if (why) reasons.push(why)
    return reasons.join("; ")
  }
  const standing = evidence.weakened.filter(stands).length
  const changes = standing === 1 ? "change that weakens" : "changes that weaken"
  if (standing > 0) reasons.push(`the guard found ${standing} ${changes} the checks`)
  return reasons.join("; ")
}

/** Why the replay does not prove the claim, in a few words (undefined: it does). */
function replayReason(replay: Replay): string | undefined {
  const verdict = replayVerdict(replay)
  if (verdict === "proven") return undefined
  if (replay.status === "could-not-run") return `the start's tests could not be run again: ${replay.reason}`
  if (replay.status !== "ran") return undefined
  if (verdict === "expectations") {
    const names = replay.expectations.map((e) => `\`${e.name}\``).join(", ")
    return `the expectation of ${names} changed`
  }
  return `the start's tests fail on the end's code (${replay.checks
    .filter((c) => !c.passed)
    .map((c) => c.name)
    .join(", ")})`
}

/**
 * The plan write-back's note: "Verified by ralph-loop in iteration 6: unit 12 passed" or "Done in
 * iteration 6, not verified: no check ran".
 */
export function planNote(evidence: Evidence, iteration: number): string {
  const passed = evidence.checks.map(passedText).join("; ")
  if (evidence.verified) return `Verified by ralph-loop in iteration ${iteration}: ${passed}`
  return `Done in iteration ${iteration}, not verified: ${notVerifiedBecause(evidence)}`
}
