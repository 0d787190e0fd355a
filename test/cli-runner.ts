// The one way tests run the built `ralph-loop` command (dist/cli/main.js) in a process of its own.
import { execFile, spawnSync } from "node:child_process"
import { join } from "node:path"
import { promisify } from "node:util"
import { packageDir } from "./harness/harness.js"

/** The built command line (`npm run build` first). */
export const CLI = join(packageDir(), "dist", "cli", "main.js")

export interface CliResult {
  status: number | null
  stdout: string
  stderr: string
}

/** `ralph-loop <args>` run to its end (killed after `timeout` ms): its exit status and output. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): CliResult {
  const { cwd, env, timeout = 120_000 } = options
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: "utf8", timeout })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

const execCli = promisify(execFile)

/** As runCli, without blocking the test's event loop (a server the test runs stays served). */
export async function runCliAsync(
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execCli(process.execPath, [CLI, ...args], {
      encoding: "utf8",
      ...(env ? { env } : {}),
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" }
  }
}
