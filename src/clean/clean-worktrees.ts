// The worktrees `ralph-loop clean` removes: those whose loop ended (or never started) more than
// `days` ago, their loop's files kept in merged/<NAME>/ (a slot's under its last story's name, its
// branch the story's); never one whose branch or folder holds work the user's branch lacks, unless
// `force`; never one git cannot tell about; never a live loop's (lifecycle.ts's verdict).
import { existsSync } from "node:fs"
import { lstat } from "node:fs/promises"
import { relative } from "node:path"
import { archiveWorktreeFiles, MERGED_DIR } from "../worktrees/worktree-archive.js"
import { branchExists, removeWorktree, unmergedCommits, worktreeUncommitted } from "../worktrees/worktree-git.js"
import { loopName } from "../worktrees/names.js"
import { worktreeFile } from "../worktrees/worktree-file.js"
import { readWorktrees, type WorktreeEntry } from "../worktrees/worktree-loops.js"
import { awaitsEndFiles, cleanVerdict } from "../worktrees/lifecycle.js"
import { endFilesWritten } from "../store/report.js"
import { DAY_MS } from "./clean-loops.js"

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** When the worktree's loop ended: its state file's, or for a loop that never started, when its failure was written. */
async function endedAt(entry: WorktreeEntry): Promise<number | undefined> {
  if (entry.saved) return entry.saved.savedAt
  return (await lstat(worktreeFile(entry.path)).catch(() => undefined))?.mtimeMs
}

export interface CleanWorktreesRequest {
  project: string
  days: number
  /** Also the worktrees whose work is not in the user's branch. */
  force: boolean
}

/**
 * Removes the worktrees whose loop ended (or never started) more than `days` ago, its loop's files
 * kept in merged/<NAME>/ first as the plugin does after a merge; one with work not in the user's
 * branch only with `force`. False when one could not be removed.
 */
export async function cleanWorktreeLoops(
  args: CleanWorktreesRequest,
  out: (line: string) => void,
  now = Date.now(),
): Promise<boolean> {
  const { days } = args
  let failed = false
  for (const entry of await readWorktrees(args.project)) {
    // A live loop's worktree is not clean's to judge (nor a folder without worktree.json): left alone, unsaid.
    if (!cleanVerdict(entry).remove) continue
    if (entry.saved && awaitsEndFiles(endFilesWritten(entry.path, entry.saved), entry.saved.savedAt, now)) {
      out(
        `ralph-loop clean: kept the worktree ${entry.name}: its loop ended moments ago and OpenCode is still ` +
          `writing its report there`,
      )
      continue
    }
    const at = await endedAt(entry)
    if (at === undefined || !(at < now - days * DAY_MS)) {
      out(
        `ralph-loop clean: kept the worktree ${entry.name}: its loop ended less than ${days} ` +
          `day${days === 1 ? "" : "s"} ago (--days 0 removes it)`,
      )
      continue
    }
    const branch = entry.state?.branch ?? `ralph/${entry.name}`
    let ahead: number
    let uncommitted: string[]
    // A slot's last story's branch is gone once merged (the slot was parked): nothing of it is missing from yours.
    let branchGone = false
    try {
      branchGone = entry.state?.slot === true && !(await branchExists(args.project, branch))
      ahead = branchGone ? 0 : await unmergedCommits(args.project, branch)
      // Ignored files too: what git ignores (an .env, build output) is lost with the folder all the same.
      uncommitted = existsSync(entry.path) ? await worktreeUncommitted(entry.path) : []
    } catch (error) {
      // git could not say whether it holds work: it is kept, whatever --force says.
      out(
        `ralph-loop clean: kept the worktree ${entry.name}: git could not tell whether it holds work (` +
          `${message(error)})`,
      )
      continue
    }
    if ((ahead > 0 || uncommitted.length > 0) && !args.force) {
      const named = `${uncommitted.slice(0, 5).join(", ")}${uncommitted.length > 5 ? ", …" : ""}`
      const files = `files not in its commit (ignored ones included): ${named}`
      out(
        `ralph-loop clean: kept the worktree ${entry.name}: ` +
          `${ahead > 0 ? `${ahead} commit${ahead === 1 ? "" : "s"} on ${branch} not in your branch` : files} ` +
          `(--force removes it anyway)`,
      )
      continue
    }
    let archive: string
    try {
      archive = await archiveWorktreeFiles(args.project, entry.state ? loopName(entry.state) : entry.name, entry.path)
    } catch (error) {
      failed = true
      out(
        `ralph-loop clean: kept the worktree ${entry.name}: its loop's files could not be kept in ` +
          `${MERGED_DIR}/${entry.name}/ (${message(error)})`,
      )
      continue
    }
    try {
      await removeWorktree(args.project, entry.name, args.force, branchGone ? null : branch)
      const what = branchGone ? ` (its branch ${branch} was merged and deleted)` : ` and its branch ${branch}`
      out(
        `ralph-loop clean: removed the worktree ${entry.name}${what}; its loop's files are ` +
          `kept in ${relative(args.project, archive)}/`,
      )
    } catch (error) {
      failed = true
      out(`ralph-loop clean: could not remove the worktree ${entry.name}: ${message(error)}`)
    }
  }
  return !failed
}
