// A worktree loop's own files — its `.opencode/`: state, journal, summaries, transcripts, report —
// kept under `.opencode/ralph-loop/merged/<NAME>/` before its worktree is removed: by the watch after
// a merge, and by `ralph-loop clean`. Links are copied as links (never followed); what is neither a
// file, a folder nor a link (a FIFO, a socket) is left out, and so is node_modules (a link to the
// installed plugin package).
import { cp, lstat, mkdir } from "node:fs/promises"
import { basename, join } from "node:path"
import { OPENCODE_DIR, STATE_DIR } from "../project/own-files.js"

export const MERGED_DIR = `${STATE_DIR}/merged`

export const archiveDir = (main: string, name: string): string => join(main, MERGED_DIR, name)

async function copied(source: string): Promise<boolean> {
  if (basename(source) === "node_modules") return false
  const info = await lstat(source).catch(() => undefined)
  return info !== undefined && (info.isFile() || info.isDirectory() || info.isSymbolicLink())
}

/** Copies the worktree's `.opencode/` to `merged/<NAME>/.opencode/` (throws when it cannot); returns the archive's folder. */
export async function archiveWorktreeFiles(main: string, name: string, worktree: string): Promise<string> {
  const archive = archiveDir(main, name)
  await mkdir(archive, { recursive: true })
  await cp(join(worktree, OPENCODE_DIR), join(archive, OPENCODE_DIR), { recursive: true, verbatimSymlinks: true, filter: copied })
  return archive
}
