// A merged worktree's loop files are kept under `.opencode/ralph-loop/merged/<NAME>/.opencode/`,
// always in a folder of their own: an older archive of the same name (an earlier loop or run that
// used the name) is moved aside to `merged/<NAME>@<time>` first, so two loops' files never mix and
// `merged/<NAME>` is always the newest (where a parallel run looks after a restart).
import { existsSync } from "node:fs"
import { cp, mkdir, rename } from "node:fs/promises"
import { join } from "node:path"
import { OPENCODE_DIR } from "../project/own-files.js"
import { MERGED_DIR } from "../store/parallel-file.js"

/** `20250106T090000Z`: a folder-name-safe time ("@" is never part of a worktree name). */
const stamp = (at: number): string => new Date(at).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")

/** Copies the worktree's `.opencode/` (its node_modules aside) into a fresh `merged/<NAME>/`; the archive's path. */
export async function archiveWorktreeFiles(main: string, name: string, worktree: string, now: number): Promise<string> {
  const archive = join(main, MERGED_DIR, name)
  if (existsSync(archive)) {
    let aside = `${archive}@${stamp(now)}`
    for (let n = 2; existsSync(aside); n += 1) aside = `${archive}@${stamp(now)}-${n}`
    await rename(archive, aside)
  }
  await mkdir(archive, { recursive: true })
  await cp(join(worktree, OPENCODE_DIR), join(archive, OPENCODE_DIR), { recursive: true, filter: (source) => !source.endsWith("node_modules") })
  return archive
}
