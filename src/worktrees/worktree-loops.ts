// The worktree loops of a project, from their files alone: every folder under
// `.opencode/ralph-loop/worktrees/`, its worktree.json, and the newest loop in its own state folder.
// Read by the main instance (limits, merges, /ralph-status) and by the `ralph-loop` command.
import { readdir } from "node:fs/promises"
import type { Heartbeat } from "../owner/heartbeat.js"
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { WORKTREES_DIR } from "./names.js"
import { launchCut } from "./lifecycle.js"
import type { WorktreeState } from "./worktree-state.js"
import { readNewestLoops, type SavedLoop } from "../store/saved-loops.js"
import { readWorktreeState } from "./worktree-file.js"
import { usHere } from "../owner/heartbeat-files.js"
import { readPresence } from "../owner/presence-files.js"

export interface WorktreeEntry {
  name: string
  path: string
  state: WorktreeState | undefined
  /** The newest loop the worktree's instance saved (none yet: the loop is starting). */
  saved: SavedLoop | undefined
  /** The instance that launched it is gone (src/worktrees/lifecycle.ts). */
  launchCut?: boolean
}

/**
 * `me`: the main instance that asks (its token tells its own launches from a restarted one's); the
 * `ralph-loop` command has none, and sees a launch cut when its process is gone.
 */
export async function readWorktrees(
  main: string,
  me: { pid: number; boot?: string } = { pid: process.pid },
): Promise<WorktreeEntry[]> {
  const root = join(main, WORKTREES_DIR)
  const names = await readdir(root, { withFileTypes: true }).then(
    (entries) =>
      entries
        .filter((e) => e.isDirectory() && !e.name.startsWith("."))
        .map((e) => e.name)
        .sort(),
    () => [],
  )
  const beats = await readPresence(main).catch(() => new Map<string, Heartbeat>())
  const us = usHere(Date.now(), me.boot)
  return Promise.all(
    names.map(async (name) => {
      const path = join(root, name)
      const [saved] = await readNewestLoops(join(path, STATE_DIR, "loops"), 1)
      const state = readWorktreeState(path)
      return { name, path, state, saved, launchCut: launchCut(state?.launch, us, beats) }
    }),
  )
}

export { isLive } from "./lifecycle.js"
