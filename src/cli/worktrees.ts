// `ralph-loop worktrees [--project DIR]`: each worktree loop — its branch, its loop's state, what its
// merge did — and the parallel plan run; `ralph-loop clean` removes the ones finished more than
// --days ago (src/clean/clean-worktrees.ts).
import { listWorktreeFolders } from "../worktrees/worktree-git.js"
import { readParallelRun } from "../worktrees/parallel-file.js"
import { readWorktrees } from "../worktrees/worktree-loops.js"
import { parallelLines, worktreeLines } from "../worktrees/status-lines.js"
import { cleanWorktreeLoops } from "../clean/clean-worktrees.js"
import { DEFAULT_DAYS } from "../clean/clean-loops.js"
import type { CliArgs } from "./args.js"

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

/** `ralph-loop clean`'s worktrees (src/clean/clean-worktrees.ts); exit 1 when one could not be removed. */
export async function cleanWorktrees(args: CliArgs, out: (line: string) => void, now = Date.now()): Promise<number> {
  const request = { project: args.project, days: args.days ?? DEFAULT_DAYS, force: args.force }
  return (await cleanWorktreeLoops(request, out, now)) ? 0 : 1
}
