// "Is it struggling?" — a loop's recent iterations read as one word and a reason. Pure.
//   stuck   — STUCK_AFTER iterations in a row without progress, or the same check failing in each
//   slowing — two in a row without progress, the same check failing twice, completion claims
//             rejected in two of the last three, or tokens per iteration rising steeply
//   ok      — none of that (also: too little history to say), and a loop that completed
// The rules are tried in that order (stuck first); the reason names the evidence.
import type { IterationRow } from "./history.js"

export type Struggle = { signal: "ok" | "slowing" | "stuck"; reason: string }

export const STUCK_AFTER = 3
const SLOWING_AFTER = 2
/**
 * Tokens per iteration "rise" when each of the last three is above the one before and the last is this many times the
 * first.
 */
const TOKEN_RISE = 1.5

/** `stopReason`: how the loop ended, if it did — a loop that completed struggles no more. */
export function struggle(rows: readonly IterationRow[], stopReason?: string): Struggle {
  if (stopReason === "completed") return { signal: "ok", reason: "completed" }
  const noProgress = trailing(rows, (r) => r.progress === false)
  const failing = sameFailingCheck(rows)
  if (noProgress >= STUCK_AFTER)
    return { signal: "stuck", reason: `${noProgress} iterations in a row without progress` }
  if (failing && failing.times >= STUCK_AFTER)
    return { signal: "stuck", reason: `check "${failing.name}" failed ${failing.times} iterations in a row` }
  if (noProgress >= SLOWING_AFTER)
    return { signal: "slowing", reason: `${noProgress} iterations in a row without progress` }
  if (failing && failing.times >= SLOWING_AFTER)
    return { signal: "slowing", reason: `check "${failing.name}" failed ${failing.times} iterations in a row` }
  const rejected = rows.slice(-3).filter((r) => r.rejected).length
  if (rejected >= 2) return { signal: "slowing", reason: `${rejected} of the last 3 completion claims were rejected` }
  const rising = risingTokens(rows)
  if (rising) return { signal: "slowing", reason: rising }
  return {
    signal: "ok",
    reason:
      rows.length === 0
        ? "no iteration decided yet"
        : rows.at(-1)?.progress === false
          ? "the last iteration made no progress"
          : "making progress",
  }
}

/** How many of the newest rows in a row satisfy `test`. */
function trailing(rows: readonly IterationRow[], test: (row: IterationRow) => boolean): number {
  let n = 0
  for (let i = rows.length - 1; i >= 0 && test(rows[i] as IterationRow); i -= 1) n += 1
  return n
}

/** The check that failed in each of the newest iterations whose checks ran, and in how many in a row. */
function sameFailingCheck(rows: readonly IterationRow[]): { name: string; times: number } | undefined {
  const runs = rows.filter((r) => r.checks !== undefined)
  const last = runs.at(-1)
  let best: { name: string; times: number } | undefined
  for (const name of last?.failing ?? []) {
    const times = trailing(runs, (r) => r.failing.includes(name))
    if (!best || times > best.times) best = { name, times }
  }
  return best
}

function risingTokens(rows: readonly IterationRow[]): string | undefined {
  const last = rows.slice(-3).map((r) => r.tokens)
  if (last.length < 3 || last[0] === 0) return undefined
  const [a, b, c] = last as [number, number, number]
  if (!(a < b && b < c && c >= a * TOKEN_RISE)) return undefined
  return `tokens per iteration rising: ${last.map((t) => t.toLocaleString("en")).join(" → ")}`
}
