// A project's loops and their histories, from its files alone (no OpenCode needed): the state
// files under .opencode/ralph-loop/loops/ and the journals beside them. Read-only.
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { readJournals } from "../store/journal-history.js"
import { readNewestLoops, type SavedLoop } from "../store/saved-loops.js"
import { histories, type IterationRow } from "./history.js"

export interface ProjectLoops {
  /** Every loop with a readable state file, newest first. */
  loops: SavedLoop[]
  history: Map<string, IterationRow[]>
}

export async function readProjectLoops(directory: string): Promise<ProjectLoops> {
  const dir = join(directory, STATE_DIR)
  const [loops, entries] = await Promise.all([readNewestLoops(join(dir, "loops"), Number.POSITIVE_INFINITY), readJournals(dir)])
  return { loops, history: histories(entries) }
}
