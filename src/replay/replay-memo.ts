// A claim through `ralph_done` is judged twice: by the tool, at once, and again when its turn ends.
// When nothing changed in between, both replays are of the same trees: the second takes the first's
// result instead of running the checks again (a replay costs the checks' own time, minutes on a big
// suite). Only a replay that ran is kept, one per loop, and only for a while.
import type { Replay } from "../evidence/replay-record.js"

/** How long a replay's result stands for the same trees. */
const REUSE_MS = 10 * 60_000

interface Memo {
  key: string
  at: number
  replay: Replay
}

const memos = new Map<string, Memo>()

/** What a replay is of: the start, the end's tree, the checks' commands, the files kept, the ignored files named. */
export const replayKey = (parts: {
  from: string
  endTree: string
  commands: readonly string[]
  keep: readonly string[]
  ignored: readonly string[]
}): string =>
  [
    parts.from,
    parts.endTree,
    parts.commands.join("\n"),
    [...parts.keep].sort().join("\n"),
    parts.ignored.join("\n"),
  ].join("\0")

/** The replay that ran of the same trees lately, for loop `loop` of `directory`. */
export function recalledReplay(directory: string, loop: string, key: string, now: number): Replay | undefined {
  const memo = memos.get(`${directory}\0${loop}`)
  return memo && memo.key === key && now - memo.at < REUSE_MS ? memo.replay : undefined
}

export function rememberReplay(directory: string, loop: string, key: string, now: number, replay: Replay): void {
  if (replay.status === "ran") memos.set(`${directory}\0${loop}`, { key, at: now, replay })
}
