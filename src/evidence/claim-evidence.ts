// The evidence of one accepted claim (issue 39), from what its turn's end read: the checks it ran
// (run at the turn's end, so after the loop's last change), the files the guard's diff names, the
// review's verdict and the guard's findings. Pure; the caller's types are given by their shape, so
// this folder stays free of the rest of src/.
import { evidenceOf, type Evidence, type Weakened } from "./record.js"
import type { TestCounts } from "../checks/test-counts.js"
import type { Replay } from "./replay-record.js"
import type { Accepted } from "./accepted.js"

interface CheckRun {
  name: string
  command: string
  exitCode: number | null
  tests?: TestCounts | null | undefined
  outputSha256?: string | undefined
}

export interface ClaimFacts {
  /** The checks run for this claim and when (undefined: none ran). */
  snapshot: { at: number; checks: readonly CheckRun[] } | undefined
  changedFiles: readonly string[]
  review: { verdict: "approve" | "reject"; reasons: string[] } | null
  weakened: readonly Weakened[]
  /** The replay of the start's tests for this claim (issue 46; undefined: none ran). */
  replay?: Replay | undefined
  /** What the user accepted while the loop ran. */
  acceptedByYou?: readonly Accepted[] | undefined
}

export function claimEvidence(facts: ClaimFacts): Evidence {
  const { snapshot, changedFiles, review, weakened, replay, acceptedByYou } = facts
  const runs = (snapshot?.checks ?? []).map((c) => ({
    name: c.name,
    command: c.command,
    exitCode: c.exitCode,
    tests: c.tests ?? null,
    outputSha256: c.outputSha256 ?? "",
    ranAt: snapshot?.at ?? 0,
  }))
  return evidenceOf({ runs, lastChangeAt: null, changedFiles, review, weakened, replay, acceptedByYou })
}
