// The guard on a claim of done (issue 39): when the turn claims done (the promise, ralph_done, the
// status block) or a criteria loop's checks ran, the loop's changes since its start are read (one
// `guard-read` effect) and scanned for what weakens the checks. The findings, with those the user
// accepted (guard.accept, in the settings the loop began with), go to decide(),
// which refuses the claim as it would for a failing check. A read that fails refuses nothing: it is
// logged, and the claim is judged by the checks alone.
import { guardAccepted, guardMode } from "../../config/guard-setting.js"
import { findingText } from "../../evidence/finding.js"
import { guardFindings } from "../../evidence/guard.js"
import { changedLoopChecks } from "../../evidence/loop-checks.js"
import { changedPaths, parseDiff } from "../../evidence/diff.js"
import { weakenedOf, type Weakened } from "../../evidence/record.js"
import { claimsCompletion } from "../../loop/decide.js"
import type { DiagnosticSnapshot } from "../../checks/diagnostics.js"
import type { Loop } from "../../loop/loop.js"
import type { Turn } from "../../loop/turn.js"
import { checksFor } from "../../plan/plan.js"
import type { ProgressSample } from "../../loop/progress.js"
import { checksDue } from "./checks.js"
import type { TestCounts } from "../../checks/test-counts.js"
import { io, type Job } from "../../effects/kernel.js"
import type { GuardRead } from "../../changes/guard-read.js"
import { log } from "../../effects/jobs.js"
import type { JobContext } from "./context.js"
import type { Settings } from "../../config/schema.js"
import { replayLine, type Replay } from "../../evidence/replay-record.js"
import { acceptedKeys, acceptedReplayFiles } from "../../evidence/acceptance.js"

/** Whether this turn's end may accept a claim of done, so the guard must read first (`checked`: its checks ran). */
function guardDue(loop: Loop, turn: Turn, checked: boolean): boolean {
  if (guardMode(loop.settings.guard) === "off") return false
  const onCriteria = !loop.plan && loop.settings.completeOnCriteria && checked
  return onCriteria || claimsCompletion(loop, turn)
}

/**
 * Whether this turn's end may replay a claim, asked before its checks run: then the replay's reads
 * start beside them (issue 46). A replay that does not come (a check failed) leaves only reads done.
 */
export const replayMayCome = (loop: Loop, turn: Turn, sample: ProgressSample): boolean =>
  checksDue(loop, turn, sample) && guardDue(loop, turn, true)

export interface GuardResult {
  weakened: Weakened[]
  /** The start's tests on the end's code (issue 46): run when every check passed for a claim. */
  replay?: Replay | undefined
  /** The user's files the loop changed since its start (the plan file, which the plugin writes back, aside). */
  changedFiles?: string[]
}

/** The guard's findings for this turn's claim (undefined: not due, or nothing could be read). */
export function* guardClaim(
  ctx: JobContext,
  loop: Loop,
  turn: Turn,
  snapshot: DiagnosticSnapshot | undefined,
  at: string | undefined,
): Job<GuardResult | undefined> {
  if (!guardDue(loop, turn, snapshot !== undefined)) return undefined
  const found = yield* readFindings(ctx, loop, at, snapshot)
  const replay = yield* replayIfPassed(loop, snapshot, at, acceptedFiles(loop, found?.weakened))
  // Changes the guard could not read cannot be proven either: the replay says why (not a repository, no start).
  if (!found) return replay && { weakened: [], replay }
  return { ...found, replay }
}

/**
 * The files of what the user accepted (the findings, in the settings or by `ralph-loop accept`; the
 * changed expectations and put-back files accepted by key): their change stands, so the replay keeps the end's version.
 */
export const acceptedFiles = (
  loop: Pick<Loop, "accepted" | "settings">,
  weakened: readonly Weakened[] | undefined,
): string[] => [
  ...new Set([
    ...(weakened ?? []).filter((f) => f.accepted && f.file !== null).map((f) => f.file as string),
    ...acceptedReplayFiles([...guardAccepted(loop.settings.guard), ...acceptedKeys(loop.accepted)]),
  ]),
]

/** Whether checks ran and every one passed (the replay's condition). */
export const allPassed = (snapshot: DiagnosticSnapshot | undefined): snapshot is DiagnosticSnapshot =>
  snapshot !== undefined && snapshot.checks.length > 0 && snapshot.checks.every((c) => c.status === "passed")

/** The replay (issue 46), when the checks passed in the work tree: undefined when they did not (or none ran). */
export function* replayIfPassed(
  loop: Loop,
  snapshot: DiagnosticSnapshot | undefined,
  at: string | undefined,
  keep: readonly string[],
): Job<Replay | undefined> {
  if (!allPassed(snapshot)) return undefined
  const replay = yield* io({ kind: "replay", loop, at, keep })
  yield* log("info", `replay: ${replayLine(replay)}`, { loop: loop.id, iteration: loop.iteration })
  return replay
}

/**
 * Reads the loop's changes and scans them (undefined: guard off, or nothing could be read). `at`: the
 * turn end's checkpoint, which holds the work tree now (else git reads it as a tree first).
 */
export function* readFindings(
  ctx: JobContext,
  loop: Loop,
  at?: string,
  snapshot?: DiagnosticSnapshot,
): Job<GuardResult | undefined> {
  if (guardMode(loop.settings.guard) === "off") return undefined
  let read: GuardRead
  try {
    read = yield* io({ kind: "guard-read", loop, at })
  } catch (error) {
    yield* log(
      "warn",
      `the guard could not read the loop's changes: ${error instanceof Error ? error.message : String(error)}`,
      { loop: loop.id },
    )
    return undefined
  }
  if ("unread" in read) {
    yield* log("info", `the guard read nothing: ${read.unread}`, { loop: loop.id })
    return undefined
  }
  const checks = checksFor(loop.settings, loop.plan).map((c) => ({
    name: c.name,
    command: c.command,
    ...testsOf(loop, c.name, snapshot),
  }))
  const findings = guardFindings({ diff: read.diff, texts: read.texts, packageJson: read.packageJson, checks })
  // The loop's own checks against the settings file now (it lies outside the checkpoints' diff).
  const now = ctx.settings()
  findings.push(...changedLoopChecks(loop.settings.checks, loopChecksNow(now)))
  // Only what the loop began with: the settings file is in the model's reach (a shell command writes it), so a key
  // added while the loop runs could be the model accepting its own finding.
  const accepted = new Set(guardAccepted(loop.settings.guard))
  const weakened = weakenedOf(findings, accepted, acceptedKeys(loop.accepted))
  if (weakened.length > 0)
    yield* log("info", `the guard found ${weakened.length} change${weakened.length === 1 ? "" : "s"} to the checks`, {
      loop: loop.id,
      iteration: loop.iteration,
      findings: weakened.map((f) => `${f.accepted ? "(accepted) " : ""}${findingText(f)}`),
    })
  const changedFiles = changedPaths(parseDiff(read.diff)).filter((path) => path !== loop.plan?.file)
  return { weakened, changedFiles }
}

/** The checks the settings now give a loop; undefined when they leave them to auto-detection. */
const loopChecksNow = (settings: Settings) =>
  settings.checks.length === 0 && settings.autoDetectChecks ? undefined : settings.checks

/**
 * A check's test counts at its first run the loop still holds (the run before its first prompt, then
 * its history of the last 20 runs) and in this claim's run: fewer tests now is a finding.
 */
export function testsOf(
  loop: Loop,
  name: string,
  snapshot: DiagnosticSnapshot | undefined,
): { first: TestCounts | null; now: TestCounts | null } {
  const counted = (s: DiagnosticSnapshot | undefined) =>
    s?.checks.find((c) => c.name === name && c.tests)?.tests ?? null
  const runs = [loop.initialChecks, ...loop.snapshots, snapshot]
  const first = runs.map(counted).find((t) => t !== null) ?? null
  return { first, now: counted(snapshot) }
}
