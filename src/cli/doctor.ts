// `ralph-loop doctor [--project DIR]`: is OpenCode there and new enough, where is the plugin listed
// and does that reach this package, is every settings layer valid. Exit 1 when something is wrong.
import { existsSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { formatProblem, globalConfigDir, loadSettings } from "../config/load.js"
import { STATE_DIR } from "../project/own-files.js"
import type { CliArgs } from "./args.js"
import { globalConfigFiles, projectConfigFiles } from "../listings/config-files.js"
import { diskUsage, formatBytes } from "../clean/disk-usage.js"
import { findOpencode, opencodeVersion } from "./opencode.js"
import { packageInfo } from "../listings/package-info.js"
import { listingsIn, loadKey, readConfig, type Listing, type Reach } from "../listings/plugin-listings.js"
import { satisfies } from "./version-range.js"
import { gitVersion, tooOldToMerge } from "../git/version.js"

type Status = "ok" | "warn" | "FAIL"

function describeReach(reach: Reach): { status: Status; text: string } {
  switch (reach.kind) {
    case "this":
      return { status: "ok", text: "reaches this package" }
    case "copy":
      return {
        status: "warn",
        text: `reaches another copy of ralph-loop (${reach.version}) at ${reach.dir}, not this one`,
      }
    case "npm":
      return {
        status: "FAIL",
        text:
          "reaches the npm registry's `ralph-loop`, an unrelated package: use a path or " +
          "ralph-loop@file:<path> (`ralph-loop install` writes one)",
      }
    case "missing":
      return { status: "FAIL", text: `leads to ${reach.path}, which does not exist` }
  }
}

type Say = (status: Status, text: string) => void
type Package = ReturnType<typeof packageInfo>

export async function doctor(args: CliArgs, env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const pkg = packageInfo()
  let failed = false
  const say: Say = (status, text) => {
    if (status === "FAIL") failed = true
    out(`${status.padEnd(4)}  ${text}`)
  }
  out(`ralph-loop doctor — ralph-loop ${pkg.version} at ${pkg.dir}, project ${args.project}`)
  checkOpencode(env, pkg, say)
  await checkGit(args.project, say)
  if (!existsSync(join(pkg.dir, "dist", "index.js")))
    say("FAIL", `this package is not built (${join(pkg.dir, "dist", "index.js")} is missing): run npm ci in ${pkg.dir}`)
  const listings = checkListings(args, env, pkg, say)
  const server = checkHalves(listings, say)
  checkSettings(args.project, env, server, say)
  const stateDir = join(args.project, STATE_DIR)
  if (existsSync(stateDir))
    out(
      `info  the loops' state and journals use ${formatBytes(diskUsage(stateDir))} in ${STATE_DIR} (\`ralph-loop ` +
        `clean\` removes ended loops' files)`,
    )
  return failed ? 1 : 0
}

/** The `opencode` command: found, answering with a version, and one this package supports. */
function checkOpencode(env: NodeJS.ProcessEnv, pkg: Package, say: Say): void {
  const bin = findOpencode(env, pkg.dir)
  const version = bin && opencodeVersion(bin)
  if (!bin) say("FAIL", "OpenCode: the `opencode` command is not on PATH")
  else if (!version) say("FAIL", `OpenCode at ${bin}: \`opencode --version\` did not answer with a version`)
  else if (satisfies(version, pkg.opencodeRange) !== true)
    say("FAIL", `OpenCode ${version} at ${bin}: ralph-loop needs ${pkg.opencodeRange} (OpenCode skips the plugin)`)
  else say("ok", `OpenCode ${version} at ${bin} (needs ${pkg.opencodeRange})`)
}

/** git: checkpoints, worktree loops and plan merge need it; merging a branch needs git ≥ 2.38. */
async function checkGit(project: string, say: Say): Promise<void> {
  const git = await gitVersion(project)
  if ("problem" in git) say("warn", `git: ${git.problem} (checkpoints, rollbacks, worktree loops and merges need git)`)
  else {
    const tooOld = tooOldToMerge(git.version)
    const fails = 'the worktree strategy "merge" and `ralph-loop plan merge` fail; the rest works'
    if (tooOld) say("warn", `${tooOld}; ${fails}`)
    else say("ok", `git ${git.version.text} (merging a loop's branch needs 2.38 or later)`)
  }
}

/** Where OpenCode's config files list this plugin (server and TUI halves), each said with where it leads. */
function checkListings(args: CliArgs, env: NodeJS.ProcessEnv, pkg: Package, say: Say): Listing[] {
  const listings: Listing[] = []
  const configFiles = (["server", "tui"] as const).flatMap((half) => [
    ...globalConfigFiles(env, half),
    ...projectConfigFiles(args.project, env, half),
  ])
  for (const config of configFiles) {
    const read = readConfig(config.file)
    if (read.error) say("FAIL", `${config.file}: ${read.error} (OpenCode cannot read it)`)
    const found = listingsIn(config, read, pkg.dir)
    if (found.pluginKeys > 1)
      say("warn", `${config.file}: "plugin" is set ${found.pluginKeys} times; OpenCode reads only the last`)
    for (const entry of found.unclear)
      say(
        "warn",
        `plugin entry ${JSON.stringify(entry.spec)} in ${config.file}: cannot tell where it leads (${entry.problem})`,
      )
    listings.push(...found.listings)
  }
  for (const listing of listings) {
    const { status, text } = describeReach(listing.reach)
    say(
      status,
      `listed (${listing.scope}${listing.half === "tui" ? ", TUI half" : ""}) in ${listing.file}: ` +
        `${JSON.stringify(listing.spec)}${listing.options ? " with options" : ""} — ${text}`,
    )
  }
  return listings
}

/** Each half listed once at least, and copies named; the server half's listings. */
function checkHalves(listings: readonly Listing[], say: Say): Listing[] {
  const server = listings.filter((l) => l.half === "server")
  const tui = listings.filter((l) => l.half === "tui")
  if (server.length === 0)
    say(
      "FAIL",
      `ralph-loop is not listed in any OpenCode config ` +
        `file${tui.length ? " (only its TUI half, in tui.json: the loop itself is the server half)" : ""}: run ` +
        `\`ralph-loop install\` (or \`--global\`)`,
    )
  else if (tui.length === 0)
    say(
      "warn",
      "the TUI half is not listed in any tui.json: loops work, but the commands cost a model turn and there is " +
        "no sidebar panel (`ralph-loop install` lists both halves)",
    )
  for (const [half, of] of [
    ["server", server],
    ["TUI", tui],
  ] as const) {
    if (of.length < 2) continue
    // Entries of one key load once; each other key loads a copy, and only the first copy loaded acts.
    const copies = new Set(of.map((l) => loadKey(l.spec, dirname(l.file)))).size
    say(
      "warn",
      copies > 1
        ? `the ${half} half is listed ${of.length} times and OpenCode loads ${copies} copies: the first loaded runs, ` +
            "the others stay out (each says so in OpenCode's log). One listing is enough: remove the others"
        : `the ${half} half is listed ${of.length} times as one plugin: OpenCode loads it once (the later entry)`,
    )
  }
  return server
}

/** The settings as each listing's options give them, every problem said once. */
function checkSettings(project: string, env: NodeJS.ProcessEnv, server: readonly Listing[], say: Say): void {
  const optionSets = server.some((l) => l.options) ? server.filter((l) => l.options).map((l) => l.options) : [undefined]
  const globalDir = globalConfigDir(env)
  const seen = new Set<string>()
  let files: string[] = []
  for (const options of optionSets) {
    const loaded = loadSettings({ directory: project, globalDir, options })
    files = loaded.files
    for (const problem of loaded.problems) {
      const text = formatProblem(problem)
      if (seen.has(text)) continue
      seen.add(text)
      say("FAIL", `settings: ${text}`)
    }
  }
  // a file inside the project by its relative path, one outside it (the global config) in full
  const shown = (f: string) => (relative(project, f).startsWith("..") ? f : relative(project, f))
  if (seen.size === 0) say("ok", `settings valid (${files.length > 0 ? files.map(shown).join(", ") : "defaults only"})`)
}
