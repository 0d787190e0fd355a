// A project's loops and their histories, from its files alone (no OpenCode needed): the state
// files under .opencode/ralph-loop/loops/ and the journals beside them, and the same of each
// worktree loop in its own worktree. Read-only; for the `ralph-loop` command (the state files are
// read synchronously, through the one reader of state files).
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { readDecidedLines } from "../store/journal-history.js"
import { readLoopsSync } from "../store/saved-loops.js"
import { readWorktrees } from "../worktrees/worktree-loops.js"
import { parseStatusLoop, type StatusSaved } from "./status-loop.js"
import { histories, type Histories } from "./history.js"

export interface ProjectLoops {
  /**
   * Every loop with a readable state file, newest first — a worktree loop's (the newest of each worktree) with its
   * worktree.
   */
  loops: StatusSaved[]
  history: Histories
}

export async function readProjectLoops(directory: string): Promise<ProjectLoops> {
  const dir = join(directory, STATE_DIR)
  const entries = readDecidedLines(dir)
  const loops = readLoopsSync(join(dir, "loops"), parseStatusLoop)
  // /ralph --worktree and --prd --parallel loops keep their files in their worktrees.
  const worktrees = (await readWorktrees(directory)).flatMap((w): StatusSaved[] =>
    w.saved ? [{ ...w.saved, worktree: { name: w.name, path: w.path } }] : [],
  )
  const worktreeEntries = await Promise.all(
    worktrees.map((w) => readDecidedLines(join(w.worktree?.path ?? directory, STATE_DIR))),
  )
  return {
    loops: [...loops, ...worktrees].sort((a, b) => b.savedAt - a.savedAt),
    history: histories([...(await entries), ...worktreeEntries.flat()]),
  }
}
