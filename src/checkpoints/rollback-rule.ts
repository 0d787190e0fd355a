// When /ralph-rollback may write the work tree: never under a turn — neither one of the loop rolled
// back nor one of another loop of the project (an ended loop's files are the live loop's files too).
// Asked before the rollback starts and again after each of its steps, before a file is written. Pure.
import type { Loop, LoopPhase } from "../loop/loop.js"

/** A turn of the loop is under way or about to be: its model would write into files being replaced. */
const TURN_PHASES: ReadonlySet<LoopPhase> = new Set(["running", "deciding", "restarting"])
/** A loop that works on the project's files now, or will by itself (a wait ends in a prompt). */
const LIVE_PHASES: ReadonlySet<LoopPhase> = new Set(["running", "deciding", "waiting", "restarting"])

export const TURN_UNDER_WAY =
  "A turn of the loop is under way. /ralph-pause, wait for the turn to end, then /ralph-rollback."

/**
 * Why the rollback of `loop` may not write the work tree now (undefined: it may). `loops`: the
 * project's live loops (the manager's), `loop` among them unless it ended.
 */
export function rollbackRefusal(loop: Loop, loops: readonly Loop[]): string | undefined {
  if (TURN_PHASES.has(loop.phase)) return TURN_UNDER_WAY
  const other = loops.find((l) => l !== loop && LIVE_PHASES.has(l.phase))
  if (other)
    return (
      `Another Ralph loop of this project is ${other.phase} (in session ${other.sessionID}): a rollback ` +
      `would rewrite files under it. /ralph-pause or /cancel-ralph that loop first, then /ralph-rollback here.`
    )
  return undefined
}
