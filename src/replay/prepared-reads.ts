// The replay's reads started ahead (issue 46): a turn's end starts them before its checks run (they do
// not depend on the checks' results), and the replay after the checks takes them instead of reading
// again, so a claim whose replay is not needed adds no git call to its path. One per loop: the next
// prepare replaces it, the replay that takes it drops it, and the map holds a few loops at most (a
// loop that ended never takes its last one). Its outcome is held settled: a read that failed rejects
// nothing until the replay asks, and then it is the replay's failure ("could not run").
import { readReplay, settle, type ReplayReadInput, type ReplayReadOutcome } from "./replay-read.js"

interface Prepared {
  at: string | undefined
  commands: string
  outcome: Promise<() => ReplayReadOutcome>
}

/** Loops whose read is kept at most (the oldest goes first). */
const MAX_PREPARED = 16

const prepared = new Map<string, Prepared>()

const keyOf = (input: Pick<ReplayReadInput, "directory" | "loopID">) => `${input.directory}\0${input.loopID}`

/**
 * Starts the replay's reads of `input` and returns at once. `at` undefined reads the work tree as it
 * is now (not when the replay runs): only a replay that follows at once may take it.
 */
export function prepareReplayRead(input: ReplayReadInput): void {
  const key = keyOf(input)
  prepared.delete(key)
  prepared.set(key, { at: input.at, commands: input.commands.join("\n"), outcome: settle(readReplay(input)) })
  for (const old of prepared.keys()) {
    if (prepared.size <= MAX_PREPARED) break
    prepared.delete(old)
  }
}

/**
 * The read prepared for the same loop, claim (`at`) and commands, taken (it is dropped); undefined
 * when there is none (the replay reads itself). A read prepared for another claim is dropped too.
 */
export function takePreparedRead(input: ReplayReadInput): Promise<() => ReplayReadOutcome> | undefined {
  const key = keyOf(input)
  const found = prepared.get(key)
  prepared.delete(key)
  return found && found.at === input.at && found.commands === input.commands.join("\n") ? found.outcome : undefined
}

/** The read prepared for a loop, not taken (settled, never rejects): what a test or the bench waits on. */
export const preparedRead = (directory: string, loopID: string): Promise<unknown> | undefined =>
  prepared.get(keyOf({ directory, loopID }))?.outcome
