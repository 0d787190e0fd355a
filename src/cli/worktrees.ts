// `ralph-loop worktrees [--project DIR]`: each worktree loop — its branch, its loop's state, what its
// merge did — and the parallel plan run; `ralph-loop clean` removes the finished ones (never one
// whose branch or folder holds work the user's branch lacks, unless --force).
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { listWorktreeFolders, removeWorktree, unmergedCommits, worktreeDirty } from "../actions/worktree-git.js"
import { parallelRunSchema, type ParallelRun } from "../plan/parallel.js"
import { STATE_DIR } from "../project/own-files.js"
import { readWorktrees } from "../store/worktree-loops.js"
import { parallelLines, worktreeLines } from "../worktree/status-lines.js"
import type { CliArgs } from "./args.js"

function parallelRun(project: string): ParallelRun | undefined {
  try {
    const parsed = parallelRunSchema.safeParse(JSON.parse(readFileSync(join(project, STATE_DIR, "parallel.json"), "utf8")))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

export async function worktrees(args: CliArgs, out: (line: string) => void): Promise<number> {
  const entries = await readWorktrees(args.project)
  const git = new Map((await listWorktreeFolders(args.project)).map((w) => [w.name, w]))
  const lines = worktreeLines(entries.map((e) => ({ name: e.name, state: e.state, loop: e.saved?.loop })))
  for (const name of git.keys()) if (!entries.some((e) => e.name === name)) lines.push(`- ${name} · git lists it, but its folder is gone (git worktree prune forgets it)`)
  const parallel = parallelLines(parallelRun(args.project))
  if (lines.length === 0 && parallel.length === 0) out(`No worktree loops in ${args.project}.`)
  for (const line of [...lines, ...(parallel.length && lines.length ? [""] : []), ...parallel]) out(line)
  return 0
}

/** Removes the worktrees whose loop has ended (or never started); one with work not in the user's branch only with --force. */
export async function cleanWorktrees(args: CliArgs, out: (line: string) => void): Promise<void> {
  for (const entry of await readWorktrees(args.project)) {
    const loop = entry.saved?.loop
    const ended = loop?.phase === "stopped" || (!loop && entry.state?.merge?.result === "failed")
    if (!ended) continue
    const branch = entry.state?.branch ?? `ralph/${entry.name}`
    let ahead: number
    let dirty: boolean
    try {
      ahead = await unmergedCommits(args.project, branch)
      dirty = existsSync(entry.path) && (await worktreeDirty(entry.path))
    } catch (error) {
      // git could not say whether it holds work: it is kept, whatever --force says.
      out(`ralph-loop clean: kept the worktree ${entry.name}: git could not tell whether it holds work (${error instanceof Error ? error.message : String(error)})`)
      continue
    }
    if ((ahead > 0 || dirty) && !args.force) {
      out(`ralph-loop clean: kept the worktree ${entry.name}: ${ahead > 0 ? `${ahead} commit${ahead === 1 ? "" : "s"} on ${branch} not in your branch` : "uncommitted changes in it"} (--force removes it anyway)`)
      continue
    }
    try {
      await removeWorktree(args.project, entry.name, args.force)
      out(`ralph-loop clean: removed the worktree ${entry.name} and its branch ${branch}`)
    } catch (error) {
      out(`ralph-loop clean: could not remove the worktree ${entry.name}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}
