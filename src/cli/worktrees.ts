// `ralph-loop worktrees [--project DIR]`: each worktree loop — its branch, its loop's state, what its
// merge did — and the parallel plan run; `ralph-loop clean` removes the ones finished more than
// --days ago, their loop's files kept in merged/<NAME>/ (a slot's under its last story's name, its branch the
// story's; never one whose branch or folder holds work the user's branch lacks, unless --force; never one git
// cannot tell about).
import { existsSync } from "node:fs"
import { lstat } from "node:fs/promises"
import { relative } from "node:path"
import { archiveWorktreeFiles, MERGED_DIR } from "../worktrees/worktree-archive.js"
import {
  branchExists,
  listWorktreeFolders,
  removeWorktree,
  unmergedCommits,
  worktreeUncommitted,
} from "../worktrees/worktree-git.js"
import { loopName } from "../worktrees/names.js"
import { readParallelRun } from "../worktrees/parallel-file.js"
import { worktreeFile } from "../worktrees/worktree-file.js"
import { readWorktrees, type WorktreeEntry } from "../worktrees/worktree-loops.js"
import { awaitsEndFiles, cleanVerdict } from "../worktrees/lifecycle.js"
import { endFilesWritten } from "../store/report.js"
import { parallelLines, worktreeLines } from "../worktrees/status-lines.js"
import type { CliArgs } from "./args.js"
import { DAY_MS, DEFAULT_DAYS } from "./clean.js"

export async function worktrees(args: CliArgs, out: (line: string) => void): Promise<number> {
  const entries = await readWorktrees(args.project)
  const git = new Map((await listWorktreeFolders(args.project)).map((w) => [w.name, w]))
  const lines = worktreeLines(entries.map((e) => ({ name: e.name, state: e.state, loop: e.saved?.loop })))
  for (const name of git.keys())
    if (!entries.some((e) => e.name === name))
      lines.push(`- ${name} · git lists it, but its folder is gone (git worktree prune forgets it)`)
  const parallel = parallelLines(readParallelRun(args.project))
  if (lines.length === 0 && parallel.length === 0) out(`No worktree loops in ${args.project}.`)
  for (const line of [...lines, ...(parallel.length && lines.length ? [""] : []), ...parallel]) out(line)
  return 0
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** When the worktree's loop ended: its state file's, or for a loop that never started, when its failure was written. */
async function endedAt(entry: WorktreeEntry): Promise<number | undefined> {
  if (entry.saved) return entry.saved.savedAt
  return (await lstat(worktreeFile(entry.path)).catch(() => undefined))?.mtimeMs
}

/**
 * Removes the worktrees whose loop ended (or never started) more than --days ago, its loop's files
 * kept in merged/<NAME>/ first as the plugin does after a merge; one with work not in the user's
 * branch only with --force. Exit 1 when one could not be removed.
 */
export async function cleanWorktrees(args: CliArgs, out: (line: string) => void, now = Date.now()): Promise<number> {
  const days = args.days ?? DEFAULT_DAYS
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
  return failed ? 1 : 0
}
