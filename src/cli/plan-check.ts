// `ralph-loop plan check [PATH] [--project DIR]`: reads a plan file as /ralph --prd would (PATH
// defaults to the project's `prdPath` setting) and prints its stories in the loop's order and the
// one it would work on first. Exit 1 when the loop could not use the file.
import { globalConfigDir, loadSettings } from "../config/load.js"
import { planCheckLines } from "../plan/status.js"
import { readPlanFile } from "../plan/plan-file.js"
import type { CliArgs } from "./args.js"

/** The plan file a `plan` subcommand reads: PATH, else the project's prdPath setting. */
export const planPath = (args: CliArgs, path: string | undefined, env: NodeJS.ProcessEnv): string =>
  path ?? loadSettings({ directory: args.project, globalDir: globalConfigDir(env) }).settings.prdPath

export async function planCheck(
  args: CliArgs,
  path: string | undefined,
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
): Promise<number> {
  const read = await readPlanFile(args.project, planPath(args, path, env))
  if (!read.ok) {
    out(`ralph-loop plan check: ${read.message}`)
    return 1
  }
  for (const line of planCheckLines(read.file, read.plan)) out(line)
  return 0
}
