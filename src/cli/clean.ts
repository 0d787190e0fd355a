// `ralph-loop clean [--days N] [--project DIR] [--force]`: what it removes is src/clean/'s; the
// project's lease decides who removes it (clean-lease.ts): this process, or the OpenCode open on the
// project that holds the lease.
import { DEFAULT_DAYS, cleanLoops } from "../clean/clean-loops.js"
import { globalConfigDir, loadSettings } from "../config/load.js"
import type { CliArgs } from "./args.js"

/** The summaryPath the project's settings name (the global file, then the project's). */
const summaryPathOf = (project: string, env: NodeJS.ProcessEnv): string =>
  loadSettings({ directory: project, globalDir: globalConfigDir(env) }).settings.summaryPath

/** The loops' files (the worktrees are cleanWorktrees's, src/cli/worktrees.ts): exit 1 when one could not go. */
export async function clean(
  args: CliArgs,
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  now = Date.now(),
): Promise<number> {
  const request = {
    project: args.project,
    days: args.days ?? DEFAULT_DAYS,
    summaryPath: summaryPathOf(args.project, env),
  }
  return (await cleanLoops(request, out, now)) ? 0 : 1
}
