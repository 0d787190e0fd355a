// `ralph-loop clean` whole: the loops' files (clean-loops.ts), then the worktrees (clean-worktrees.ts),
// their lines in `out`. The CLI runs it when it holds the project's lease; the OpenCode that holds the
// lease runs it when the CLI asks (clean-job.ts), with the loops it runs kept whatever their files say.
import { cleanLoops, type CleanLoopsRequest } from "./clean-loops.js"
import { cleanWorktreeLoops } from "./clean-worktrees.js"

export type CleanRequest = CleanLoopsRequest & { force: boolean }

/** False when something could not be removed (named in `out`). */
export async function cleanProject(
  request: CleanRequest,
  out: (line: string) => void,
  now = Date.now(),
): Promise<boolean> {
  const loops = await cleanLoops(request, out, now)
  const worktrees = await cleanWorktreeLoops(request, out, now)
  return loops && worktrees
}
