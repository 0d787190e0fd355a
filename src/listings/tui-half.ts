// Whether the server plugin runs in OpenCode's TUI process and that TUI loads this package's TUI
// half: then the TUI runs the zero-turn commands itself, and the server's commands of the same names
// (each a model turn) are left out of that process. `opencode run`, `serve`, `web` and `attach`
// servers keep them (their clients have no TUI half).
import { packageInfo } from "./package-info.js"
import { globalConfigFiles, projectConfigFiles } from "./config-files.js"
import { listingsIn, readConfig } from "./plugin-listings.js"

/** OpenCode 1.18.33 runs the TUI's server in a worker whose script is `…/cli/tui/worker.js` (its argv[1]). */
export const inTuiProcess = (argv: readonly string[] = process.argv): boolean =>
  argv.some((arg) => /[\\/]cli[\\/]tui[\\/]worker\.js$/.test(arg))

/** Whether a tui.json[c] the TUI reads for `directory` lists this package (a copy elsewhere may have no TUI half). */
export function tuiHalfListed(
  directory: string,
  env: NodeJS.ProcessEnv = process.env,
  packageDir = packageInfo().dir,
): boolean {
  for (const config of [...globalConfigFiles(env, "tui"), ...projectConfigFiles(directory, env, "tui")]) {
    const read = readConfig(config.file)
    if (read.error) continue
    if (listingsIn(config, read, packageDir).listings.some((l) => l.reach.kind === "this")) return true
  }
  return false
}
