// A project's loops and their histories, from its files alone (no OpenCode needed): the state
// files under .opencode/ralph-loop/loops/ and the journals beside them. Read-only; for the
// `ralph-loop` command (the state files are read synchronously, through the one reader of state files).
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { readDecidedLines } from "../store/journal-history.js"
import { readLoopsSync } from "../store/saved-loops.js"
import { parseStatusLoop, type StatusSaved } from "./status-loop.js"
import { histories, type Histories } from "./history.js"

export interface ProjectLoops {
  /** Every loop with a readable state file, newest first. */
  loops: StatusSaved[]
  history: Histories
}

export async function readProjectLoops(directory: string): Promise<ProjectLoops> {
  const dir = join(directory, STATE_DIR)
  const entries = readDecidedLines(dir)
  const loops = readLoopsSync(join(dir, "loops"), parseStatusLoop)
  return { loops, history: histories(await entries) }
}
