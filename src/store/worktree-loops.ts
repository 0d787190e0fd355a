// The worktree loops of a project, from their files alone: every folder under
// `.opencode/ralph-loop/worktrees/`, its worktree.json, and the newest loop in its own state folder.
// Read by the main instance (limits, merges, /ralph-status) and by the `ralph-loop` command.
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { WORKTREES_DIR } from "../worktree/names.js"
import type { WorktreeState } from "../worktree/worktree-state.js"
import { readNewestLoops, type SavedLoop } from "./saved-loops.js"
import { readWorktreeState } from "./worktree-file.js"

export interface WorktreeEntry {
  name: string
  path: string
  state: WorktreeState | undefined
  /** The newest loop the worktree's instance saved (none yet: the loop is starting). */
  saved: SavedLoop | undefined
}

export async function readWorktrees(main: string): Promise<WorktreeEntry[]> {
  const root = join(main, WORKTREES_DIR)
  const names = await readdir(root, { withFileTypes: true }).then(
    (entries) => entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name).sort(),
    () => [],
  )
  return Promise.all(
    names.map(async (name) => {
      const path = join(root, name)
      const [saved] = await readNewestLoops(join(path, STATE_DIR, "loops"), 1)
      return { name, path, state: readWorktreeState(path), saved }
    }),
  )
}

export { isLive } from "../worktree/lifecycle.js"
