// A worktree loop's `worktree.json` in the worktree's `.opencode/ralph-loop/`: written by the main
// instance when it makes the worktree, read by the worktree's own instance (where the loop runs).
import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { WORKTREE_FILE, worktreeStateSchema, type WorktreeState } from "./worktree-state.js"
import { writeFileAtomic } from "../files/atomic.js"
import { readRegularFileSync } from "../files/regular-file.js"

export const worktreeFile = (directory: string): string => join(directory, STATE_DIR, WORKTREE_FILE)

/** The worktree this directory is, or undefined for a project directory (or a file that does not parse). */
export function readWorktreeState(directory: string): WorktreeState | undefined {
  // Read on the main instance's event path: a FIFO here must not block it.
  const read = readRegularFileSync(worktreeFile(directory))
  if (!read.ok) return undefined
  try {
    const parsed = worktreeStateSchema.safeParse(JSON.parse(read.text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

export async function writeWorktreeState(directory: string, state: WorktreeState): Promise<void> {
  await mkdir(join(directory, STATE_DIR), { recursive: true })
  await writeFileAtomic(worktreeFile(directory), `${JSON.stringify(state, null, 2)}\n`)
}
