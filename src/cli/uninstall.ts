// `ralph-loop uninstall [--global | --project DIR]`: removes this plugin's entries from every
// config file of the scope (opencode.json[c] and tui.json[c]), comments and formatting kept. The settings file stays
// (the user's).
import { editFileAtomic } from "../files/atomic.js"
import type { CliArgs } from "./args.js"
import { scopeConfigFiles } from "../listings/config-files.js"
import { packageInfo } from "../listings/package-info.js"
import { listingsIn, readConfig } from "../listings/plugin-listings.js"
import { removePluginEntries } from "./remove-entries.js"

export async function uninstall(args: CliArgs, env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const pkg = packageInfo()
  const files = scopeConfigFiles(args.global, args.project, env)
  let removed = 0
  let failed = 0
  for (const config of files) {
    const read = readConfig(config.file)
    if (read.error) {
      out(`ralph-loop uninstall: ${config.file} is ${read.error}; left as it is`)
      failed += 1
      continue
    }
    const { listings, unclear } = listingsIn(config, read, pkg.dir)
    for (const entry of unclear)
      out(
        `ralph-loop uninstall: left ${JSON.stringify(entry.spec)} in ${config.file}: cannot tell where it leads ` +
          `(${entry.problem})`,
      )
    if (listings.length === 0) continue
    try {
      await editFileAtomic(
        config.file,
        removePluginEntries(
          read.text,
          listings.map((l) => l.index),
        ),
      )
    } catch (error) {
      out(
        `ralph-loop uninstall: could not write ${config.file}: ` +
          `${error instanceof Error ? error.message : String(error)}`,
      )
      failed += 1
      continue
    }
    for (const listing of listings)
      out(`ralph-loop uninstall: removed ${JSON.stringify(listing.spec)} from ${config.file}`)
    removed += listings.length
  }
  if (removed === 0 && failed === 0)
    out(`ralph-loop uninstall: ralph-loop is not listed in any ${args.global ? "global" : "project"} config file`)
  else if (removed > 0)
    out("Restart OpenCode to unload it. Your ralph-loop.jsonc settings and the loops' files are kept.")
  return failed > 0 ? 1 : 0
}
