// `ralph-loop uninstall [--global | --project DIR]`: removes this plugin's entries from every
// config file of the scope, comments and formatting kept. The settings file stays (the user's).
import { editFileAtomic } from "../store/atomic.js"
import type { CliArgs } from "./args.js"
import { globalConfigFiles, projectConfigFiles } from "./config-files.js"
import { packageInfo } from "./package-info.js"
import { listingsIn, pluginProperty, readConfig, type ConfigRead, type Listing } from "./plugin-listings.js"
import { removePluginEntries } from "./remove-entries.js"

/**
 * `read`'s text without `listings`, taken from the `plugin` list OpenCode reads: the last `plugin`
 * key. removePluginEntries edits the first one, so the keys before the last are renamed (same
 * length) while it runs, and the text before the last key is kept as it was.
 */
function withoutListings(read: ConfigRead, listings: Listing[]): string {
  const last = pluginProperty(read.tree)
  if (!last) return read.text
  let masked = read.text
  for (const property of read.tree?.children ?? []) {
    const key = property.children?.[0]
    if (property === last || !key || key.value !== "plugin") continue
    masked = `${masked.slice(0, key.offset + 1)}${"_".repeat(key.length - 2)}${masked.slice(key.offset + key.length - 1)}`
  }
  const edited = removePluginEntries(masked, listings.map((l) => l.index))
  if (edited.slice(0, last.offset) !== masked.slice(0, last.offset)) throw new Error("removing the entries changed the text before the plugin list")
  return read.text.slice(0, last.offset) + edited.slice(last.offset)
}

export async function uninstall(args: CliArgs, env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const pkg = packageInfo()
  const files = args.global ? globalConfigFiles(env) : projectConfigFiles(args.project, env)
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
    for (const entry of unclear) out(`ralph-loop uninstall: left ${JSON.stringify(entry.spec)} in ${config.file}: cannot tell where it leads (${entry.problem})`)
    if (listings.length === 0) continue
    try {
      await editFileAtomic(config.file, withoutListings(read, listings))
    } catch (error) {
      out(`ralph-loop uninstall: could not write ${config.file}: ${error instanceof Error ? error.message : String(error)}`)
      failed += 1
      continue
    }
    for (const listing of listings) out(`ralph-loop uninstall: removed ${JSON.stringify(listing.spec)} from ${config.file}`)
    removed += listings.length
  }
  if (removed === 0 && failed === 0) out(`ralph-loop uninstall: ralph-loop is not listed in any ${args.global ? "global" : "project"} config file`)
  else if (removed > 0) out("Restart OpenCode to unload it. Your ralph-loop.jsonc settings and the loops' files are kept.")
  return failed > 0 ? 1 : 0
}
