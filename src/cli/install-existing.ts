// `ralph-loop install` when the scope lists the package already, in any form (a path, a file: spec,
// the bare name) and in any of its config files: the listing stays as it is and nothing is added.
// OpenCode loads every listing that reaches a different module, so a second one would load a
// second copy (it stays out, but the first listing is all the project needs).
import { join } from "node:path"
import { globalConfigDir } from "../config/load.js"
import type { Listing, Reach } from "../listings/plugin-listings.js"

export interface KeptListing {
  /** 0: this package is listed; 1: what is listed is not this package (nothing was changed). */
  code: number
  lines: string[]
}

function reachText(reach: Reach): string {
  switch (reach.kind) {
    case "this":
      return "this package"
    case "copy":
      return `another copy of ralph-loop (${reach.version}) at ${reach.dir}`
    case "npm":
      return "the npm registry's `ralph-loop`, an unrelated package"
    case "missing":
      return `${reach.path}, which does not exist`
  }
}

/** The TUI config file `opencode plugin` would list the TUI half in. */
export function tuiConfigFile(global: boolean, project: string, env: NodeJS.ProcessEnv): string {
  return global ? join(globalConfigDir(env), "tui.json") : join(project, ".opencode", "tui.json")
}

/**
 * What install says when `listings` (the scope's, both halves) hold a server listing; undefined when
 * they hold none and install goes on.
 */
export function keptListing(
  listings: Listing[],
  global: boolean,
  spec: string,
  tuiFile: string,
): KeptListing | undefined {
  const server = listings.filter((l) => l.half === "server")
  if (server.length === 0) return undefined
  const flag = global ? " --global" : ""
  const lines = server.map(
    (l) =>
      `ralph-loop install: already listed in ${l.file} as ${JSON.stringify(l.spec)} ` +
      `(reaches ${reachText(l.reach)}); left as it is, nothing added.`,
  )
  if (!server.some((l) => l.reach.kind === "this")) {
    lines.push(
      `To list this package instead: \`ralph-loop uninstall${flag}\` removes that listing, ` +
        `then \`ralph-loop install${flag}\`.`,
    )
    return { code: 1, lines }
  }
  if (server.length > 1)
    lines.push(
      "Listed more than once: OpenCode loads each copy, the first runs and the others stay out. " +
        "One listing is enough (`ralph-loop doctor`).",
    )
  if (!listings.some((l) => l.half === "tui"))
    lines.push(
      "The TUI half is not listed: for the commands without a model turn and the sidebar panel, " +
        `add ${JSON.stringify(spec)} to the "plugin" list of ${tuiFile}.`,
    )
  return { code: 0, lines }
}
