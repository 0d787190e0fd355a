// A worktree loop's own files — its `.opencode/`: state, journal, summaries, transcripts, report —
// kept under `.opencode/ralph-loop/merged/<NAME>/` before its worktree is removed: by the settle job
// after a merge, and by `ralph-loop clean`. Always in a folder of their own: an older archive of the
// same name (an earlier loop or run that used the name) is moved aside to `merged/<NAME>@<time>`
// first, so two loops' files never mix and `merged/<NAME>` is always the newest (where a parallel
// run looks after a restart). Links are copied as links (never followed); what is neither a file, a
// folder nor a link (a FIFO, a socket) is left out, and so is node_modules (a link to the installed
// plugin package).
import { existsSync } from "node:fs"
import { cp, lstat, mkdir, rename } from "node:fs/promises"
import { basename, join } from "node:path"
import { OPENCODE_DIR } from "../project/own-files.js"
import { MERGED_DIR } from "./parallel-file.js"

export { MERGED_DIR }

export const archiveDir = (main: string, name: string): string => join(main, MERGED_DIR, name)

/** `20250106T090000Z`: a folder-name-safe time ("@" is never part of a worktree name). */
const stamp = (at: number): string =>
  new Date(at)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")

async function copied(source: string): Promise<boolean> {
  if (basename(source) === "node_modules") return false
  const info = await lstat(source).catch(() => undefined)
  return info !== undefined && (info.isFile() || info.isDirectory() || info.isSymbolicLink())
}

/**
 * Copies the worktree's `.opencode/` into a fresh `merged/<NAME>/.opencode/` (throws when it cannot); the archive's
 * folder.
 */
export async function archiveWorktreeFiles(
  main: string,
  name: string,
  worktree: string,
  now: number = Date.now(),
): Promise<string> {
  const archive = archiveDir(main, name)
  if (existsSync(archive)) {
    let aside = `${archive}@${stamp(now)}`
    for (let n = 2; existsSync(aside); n += 1) aside = `${archive}@${stamp(now)}-${n}`
    await rename(archive, aside)
  }
  await mkdir(archive, { recursive: true })
  await cp(join(worktree, OPENCODE_DIR), join(archive, OPENCODE_DIR), {
    recursive: true,
    verbatimSymlinks: true,
    filter: copied,
  })
  return archive
}
