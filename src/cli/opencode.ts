// The `opencode` binary on PATH: where it is, its version, and running it.
import { spawnSync } from "node:child_process"
import { accessSync, constants, statSync } from "node:fs"
import { delimiter, join, resolve } from "node:path"

/**
 * The first `opencode` on PATH — leaving out this package's own node_modules/.bin, which `npx` and
 * `npm run` put first: the opencode-ai there is the tests' (its launcher needs the postinstall
 * this package skips), not the OpenCode the user runs.
 */
export function findOpencode(env: NodeJS.ProcessEnv = process.env, packageDir?: string): string | undefined {
  const names = process.platform === "win32" ? ["opencode.exe", "opencode.cmd", "opencode"] : ["opencode"]
  const ownBin = packageDir && resolve(packageDir, "node_modules", ".bin")
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || resolve(dir) === ownBin) continue
    for (const name of names) {
      const file = join(dir, name)
      try {
        if (!statSync(file).isFile()) continue
        accessSync(file, constants.X_OK)
        return file
      } catch {
        // not here
      }
    }
  }
  return undefined
}

export function opencodeVersion(bin: string): string | undefined {
  const result = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30_000 })
  if (result.status !== 0) return undefined
  return /\d+\.\d+\.\d+\S*/.exec(result.stdout)?.[0]
}

/** `opencode plugin <spec> [-g]` in `cwd`, its output passed through; true when it succeeded. */
export function runOpencodePlugin(bin: string, spec: string, global: boolean, cwd: string): boolean {
  const result = spawnSync(bin, ["plugin", spec, ...(global ? ["-g"] : [])], {
    cwd,
    stdio: "inherit",
    timeout: 5 * 60_000,
  })
  return result.status === 0
}
