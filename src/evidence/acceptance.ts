// What the user accepts while a loop runs (issue 46): `ralph-loop accept` and the TUI's command name
// what refused the loop's last claim of done by its key, at no model turn; the next claim is judged
// with it. Three kinds of key:
//   a guard finding's (findingKey: kind:file:name:text): the finding no longer refuses, and its
//     file is replayed as the end has it;
//   a changed expectation's (expectationKey: file::name::end): its test file is replayed as the end
//     has it;
//   `replay:<path>`: a file the replay put back or merged (an honest rewrite of a test the start
//     had, say) is replayed as the end has it.
// An accept is the user's only: one from a model's shell is refused and kept as a refused accept. Pure.
import type { Accepted } from "./accepted.js"
import { findingKey, findingSchema } from "./finding.js"
import { stands, type Weakened } from "./record.js"
import { expectationKey, replayVerdict, type Replay } from "./replay-record.js"

const REPLAY_KEY = "replay:"

/** The key that keeps a file the replay put back as the end has it. */
const replayFileKey = (path: string): string => `${REPLAY_KEY}${path}`

/** What the guard read at the loop's last claim of done (the loop's `guard` state). */
export interface LastClaim {
  findings: readonly Weakened[]
  replay?: Replay | undefined
}

/** What refused the last claim, by key: the findings that stand, and what the replay failed on. */
export function acceptableKeys(claim: LastClaim | undefined): string[] {
  if (!claim) return []
  const findings = claim.findings.filter(stands).map(findingKey)
  const replay = claim.replay
  if (replay?.status !== "ran") return unique(findings)
  const verdict = replayVerdict(replay)
  if (verdict === "expectations") return unique([...findings, ...replay.expectations.map(expectationKey)])
  if (verdict !== "failed") return unique(findings)
  return unique([...findings, ...[...replay.putBack, ...replay.merged].map(replayFileKey)])
}

export type AcceptAnswer =
  | { ok: true; accepted: string[]; already: string[] }
  | { ok: false; unknown: string[]; acceptable: string[] }

/**
 * What an accept of `keys` does (none: all that refused the last claim): the keys it adds, those
 * accepted already; or, when one names nothing that refused it, the keys it could name.
 */
export function acceptKeys(
  claim: LastClaim | undefined,
  accepted: readonly Accepted[],
  keys: readonly string[],
): AcceptAnswer {
  const acceptable = acceptableKeys(claim)
  const had = new Set(accepted.map((a) => a.key))
  const wanted = unique(keys.length > 0 ? keys.map((k) => k.trim()) : acceptable)
  const unknown = wanted.filter((k) => !acceptable.includes(k) && !had.has(k))
  if (unknown.length > 0 || wanted.length === 0) return { ok: false, unknown, acceptable }
  return { ok: true, accepted: wanted.filter((k) => !had.has(k)), already: wanted.filter((k) => had.has(k)) }
}

/** The files accepted keys keep as the end has them in the replay (a finding's file comes with the finding). */
export function acceptedReplayFiles(keys: Iterable<string>): string[] {
  return unique(
    [...keys].flatMap((key) => {
      if (key.startsWith(REPLAY_KEY)) return [key.slice(REPLAY_KEY.length)]
      if (isFindingKey(key)) return []
      const cut = key.indexOf("::")
      return cut > 0 ? [key.slice(0, cut)] : []
    }),
  )
}

/** A guard finding's key starts with its kind (an expectation's with a path). */
const isFindingKey = (key: string): boolean =>
  findingSchema.shape.kind.options.some((kind) => key.startsWith(`${kind}:`))

/** The keys the user accepted while the loop ran. */
export const acceptedKeys = (accepted: readonly Accepted[] | undefined): Set<string> =>
  new Set((accepted ?? []).map((a) => a.key))

const unique = (keys: readonly string[]): string[] => [...new Set(keys)]
