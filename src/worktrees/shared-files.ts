// The folder whose project memory (memory.md) and progress log (progress.md) an instance reads and
// writes. A project's instance: its own. A worktree's instance: the project it was made from
// (worktree.json's `mainDirectory`), so a worktree loop is given what earlier loops learned and
// leaves its own lessons there, merged or not. A worktree has the project's layout, so the paths
// its lessons name mean the same files. When that project cannot be found where worktree.json says
// (moved, unreadable, or this is not its worktree), the worktree's own folder, with the reason.
import { realpath } from "node:fs/promises"
import { isAbsolute } from "node:path"
import type { WorktreeState } from "./worktree-state.js"
import { worktreePath } from "./names.js"

export interface SharedFilesFolder {
  directory: string
  /** Why a worktree's instance keeps its own memory and progress log (for the log). */
  problem?: string
}

export async function sharedFilesFolder(
  directory: string,
  worktree: WorktreeState | undefined,
): Promise<SharedFilesFolder> {
  if (!worktree) return { directory }
  const main = worktree.mainDirectory
  const own = (why: string): SharedFilesFolder => ({
    directory,
    problem: `this worktree keeps its own project memory and progress log: its project ${main} ${why}`,
  })
  if (!isAbsolute(main)) return own("is not an absolute path")
  const [expected, actual] = await Promise.all([
    realpath(worktreePath(main, worktree.name)).catch(() => undefined),
    realpath(directory).catch(() => undefined),
  ])
  if (expected === undefined) return own(`cannot be read, or has no worktree ${worktree.name}`)
  if (expected !== actual) return own(`has another folder as its worktree ${worktree.name}`)
  // The project's own spelling of its path (what its instance was given): the file queues match it.
  return { directory: main }
}
