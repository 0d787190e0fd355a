// What the replay (issue 46) says of a claim of done, for the decision: the start's tests passed
// on the end's code (or nothing of them changed), so the claim is proven and the guard's patterns are
// words, not refusals; they failed, so the claim is refused and the next prompt names the failing
// tests and what the loop changed that hid them; they failed only where the loop changed a test's
// expectation, so the claim is refused once, and the same change claimed again completes as not
// verified (or goes to the reviewer); it could not run, so the claim is judged as before and its
// evidence says why it is not verified. Pure.
import { findingKey, findingText } from "../evidence/finding.js"
import type { Weakened } from "../evidence/record.js"
import {
  expectationKey,
  replayLine,
  replayVerdict,
  type RanReplay,
  type Replay,
  type ReplayVerdict,
} from "../evidence/replay-record.js"
import type { Loop } from "./loop.js"

export interface ReplayJudgement {
  verdict: ReplayVerdict | undefined
  /** The next prompt's words when the replay refuses the claim (empty: it does not). */
  refused: string[]
  /** The replay proves the claim: the guard's findings no longer refuse it on their own. */
  proves: boolean
  /** The changed expectations refused so far, this claim's with them (remembered by the loop). */
  refusedExpectations: string[]
}

export const REPLAY_REFUSED =
  "The completion claim was refused: the tests this project had when the loop began fail on your code."

export function judgeReplay(
  loop: Pick<Loop, "guard">,
  replay: Replay | undefined,
  findings: readonly Weakened[],
): ReplayJudgement {
  const before = loop.guard?.refusedExpectations ?? []
  const none = { refused: [], refusedExpectations: before }
  if (replay === undefined) return { verdict: undefined, proves: false, ...none }
  const verdict = replayVerdict(replay)
  if (verdict === "proven") return { verdict, proves: true, ...none }
  if (verdict === "unproven" || replay.status !== "ran") return { verdict, proves: false, ...none }
  if (verdict === "failed")
    return { verdict, proves: false, refused: failedWords(replay, findings), refusedExpectations: before }
  const keys = replay.expectations.map(expectationKey)
  // The same change claimed again: the task asks for it (or the reviewer says); not verified, never refused again.
  if (keys.every((key) => before.includes(key))) return { verdict, proves: true, ...none }
  const refusedExpectations = [...new Set([...before, ...keys])]
  return { verdict, proves: false, refused: expectationWords(replay), refusedExpectations }
}

/** What the loop changed that the replay put back, left out or merged: how the failures were hidden. */
function hidingWords(replay: RanReplay): string[] {
  return [
    ...replay.putBack.map((path) => `- ${path}: changed, deleted or renamed by you; put back as it was`),
    ...replay.merged.map((path) => `- ${path}: its test scripts or runner settings changed; put back as they were`),
    ...replay.leftOut.map((path) => `- ${path}: new in the loop; left out of the replay`),
    ...replay.ignored.map((path) => `- ${path}: ignored by git, yet a test runner reads it; left out of the replay`),
  ]
}

function failedWords(replay: RanReplay, findings: readonly Weakened[]): string[] {
  const failing = replay.checks.filter((c) => !c.passed)
  return [
    REPLAY_REFUSED,
    "ralph-loop ran the checks again with the project's own tests as they were at the start; these fail:",
    ...failing.map(
      (c) => `- ${c.name} (${c.command}): ${c.failures.slice(0, 10).join("; ") || `exit code ${c.exitCode}`}`,
    ),
    "What you changed that made them pass in the work tree:",
    ...hidingWords(replay),
    ...findings.map((f) => `- ${findingText(f)} [finding ${findingKey(f)}]`),
    "Fix the code so that these tests pass as they were written, then claim again.",
  ]
}

export const EXPECTATIONS_REFUSED =
  "The completion claim was refused once: these tests of the start fail on your code, and you changed what they expect:"

function expectationWords(replay: RanReplay): string[] {
  return [
    EXPECTATIONS_REFUSED,
    ...replay.expectations.map((e) => `- ${e.file} > ${e.name}: \`${e.start}\` became \`${e.end}\``),
    "If the task asks for exactly this change, claim again with it unchanged: the loop then completes, marked" +
      " not verified with these tests named (or the reviewer decides)." +
      " Otherwise put the expectations back and fix the code.",
  ]
}

/** What a completion's detail (and its toast) adds of the replay: why it is not verified, if it is not. */
export function replayNote(replay: Replay | undefined): string {
  if (replay === undefined) return ""
  const verdict = replayVerdict(replay)
  if (verdict === "expectations" && replay.status === "ran") {
    const names = replay.expectations.map((e) => `\`${e.name}\``).join(", ")
    return ` — done, not verified: the expectation of ${names} changed`
  }
  return verdict === "unproven" ? ` — not verified: the replay of the start's tests ${replayLine(replay)}` : ""
}
