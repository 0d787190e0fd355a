// A loop's iteration history, from its journal lines: one row per decided turn, with what that
// iteration cost (the journal records running totals; a row holds the difference), how long it
// took, what its checks found and how many stories were done after it. Pure.
import type { DecidedLine } from "../store/journal-history.js"

export interface IterationRow {
  iteration: number
  /** When the turn was decided (ms since the epoch). */
  at: number
  decision: string | undefined
  /** Tokens and cost of this iteration alone. */
  tokens: number
  cost: number
  durationMs: number
  /** Counts of the checks run for it; undefined when none ran. */
  checks:
    | { errors: number; warnings: number; securityIssues: number; testsFailed: number; testsRun: number }
    | undefined
  /** The checks that did not pass. */
  failing: string[]
  /** Whether the iteration made progress as the breaker counts it; undefined when the journal does not say. */
  progress: boolean | undefined
  /** It claimed completion and the claim was not accepted. */
  rejected: boolean
  /** Stories done after it (plan loops). */
  storiesDone: number | undefined
}

/** The decided turns of each loop, by `historyKey`. */
export type Histories = ReadonlyMap<string, IterationRow[]>

/**
 * A loop's key in the histories: its id and when it started — a new /ralph in a session whose
 * earlier loop ended gets the same id, and its history must not continue the earlier one's.
 */
const historyKey = (loop: { id: string; startedAt: number }): string => `${loop.id}@${loop.startedAt}`

/** The decided turns of `loop`, oldest first. */
export const historyOf = (histories: Histories, loop: { id: string; startedAt: number }): IterationRow[] =>
  histories.get(historyKey(loop)) ?? []

/**
 * The decided turns of each loop in `entries` (journal order). A line repeated by a journal's
 * rotation (it carries the open loops' last lines over) counts once.
 */
export function histories(entries: Iterable<DecidedLine>): Histories {
  const byLoop = new Map<string, { rows: IterationRow[]; seen: Set<string>; tokens: number; cost: number }>()
  for (const entry of entries) {
    const record = entry.record
    const id = historyKey(entry.loop)
    let loop = byLoop.get(id)
    if (!loop) {
      loop = { rows: [], seen: new Set(), tokens: 0, cost: 0 }
      byLoop.set(id, loop)
    }
    const key = `${entry.at}#${entry.loop.iteration}`
    if (loop.seen.has(key)) continue
    loop.seen.add(key)
    loop.rows.push({
      iteration: entry.loop.iteration,
      at: Date.parse(entry.at),
      decision: record.decision,
      tokens: Math.max(0, record.tokens - loop.tokens),
      cost: Math.max(0, record.cost - loop.cost),
      durationMs: record.durationMs,
      checks: record.checks,
      failing: record.failing ?? [],
      // An older journal has no progress field: the breaker's counter after the decision says it (not for a completing
      // turn).
      progress: record.progress ?? (record.breaker && record.breaker.noProgress === 0),
      rejected: record.claimed === true && record.decision !== "complete",
      storiesDone: entry.plan?.done.length,
    })
    loop.tokens = Math.max(loop.tokens, record.tokens)
    loop.cost = Math.max(loop.cost, record.cost)
  }
  return new Map([...byLoop].map(([id, { rows }]) => [id, rows]))
}
