// `ralph-loop install [--global | --project DIR]`: OpenCode's own `opencode plugin` with this
// package's exact spec does the config editing; this adds the settings file with its $schema.
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { globalConfigDir } from "../config/load.js"
import type { CliArgs } from "./args.js"
import { globalConfigFiles, scopeConfigFiles } from "../listings/config-files.js"
import { keptListing, tuiConfigFile } from "./install-existing.js"
import { findOpencode, opencodeVersion, runOpencodePlugin } from "./opencode.js"
import { packageInfo } from "../listings/package-info.js"
import { listingsOf, loadKey } from "../listings/plugin-listings.js"
import { satisfies } from "./version-range.js"

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)

function settingsDir(args: CliArgs, env: NodeJS.ProcessEnv): string {
  return args.global ? globalConfigDir(env) : join(args.project, ".opencode")
}

/** Writes ralph-loop.jsonc with its $schema into `dir` unless a settings file is there; the file written, if any. */
function writeSettingsFile(dir: string, schemaFile: string): string | undefined {
  if (["ralph-loop.jsonc", "ralph-loop.json"].some((name) => existsSync(join(dir, name)))) return undefined
  mkdirSync(dir, { recursive: true })
  const file = join(dir, "ralph-loop.jsonc")
  const text = [
    "// ralph-loop settings; every key is in the README (Configuration). Later layers win:",
    "// defaults ← global ralph-loop.jsonc ← project .opencode/ralph-loop.jsonc ← plugin options ← /ralph flags.",
    "{",
    `  "$schema": ${JSON.stringify(pathToFileURL(schemaFile).href)}`,
    "}",
    "",
  ].join("\n")
  writeFileSync(file, text, { flag: "wx" })
  return file
}

export function install(args: CliArgs, env: NodeJS.ProcessEnv, out: (line: string) => void): number {
  const pkg = packageInfo()
  // Listed already in this scope (by path, file: spec or name): a second listing would load a second copy.
  const listed = listingsOf(scopeConfigFiles(args.global, args.project, env), pkg.dir)
  const kept = keptListing(listed, args.global, pkg.spec, tuiConfigFile(args.global, args.project, env))
  if (kept) {
    for (const line of kept.lines) out(line)
    return kept.code === 0 ? finish(args, env, pkg.schemaFile, out) : kept.code
  }
  // A global listing OpenCode does not merge with this spec (a path) would load a copy of its own, first.
  const globally = args.global ? [] : listingsOf(globalConfigFiles(env), pkg.dir)
  const apart = globally.find((l) => loadKey(l.spec, dirname(l.file)) !== loadKey(pkg.spec, args.project))
  if (apart)
    out(
      `ralph-loop install: note: also listed globally in ${apart.file} as ${JSON.stringify(apart.spec)}; ` +
        "OpenCode will load both, the global copy runs and this project's stays out (`ralph-loop doctor`).",
    )
  const command = `opencode plugin ${quote(pkg.spec)}${args.global ? " -g" : ""}`
  const bin = findOpencode(env, pkg.dir)
  if (!bin) {
    const where = args.global
      ? join(globalConfigDir(env), "opencode.json")
      : join(args.project, ".opencode", "opencode.json")
    out(
      `OpenCode (the \`opencode\` command) is not on PATH. Install it ` +
        `(https://opencode.ai), then run${args.global ? "" : ` in ${args.project}`}:`,
    )
    out("")
    out(`  ${command}`)
    out("")
    out(`or add the plugin to ${where} yourself:`)
    out("")
    out(JSON.stringify({ plugin: [pkg.spec] }, null, 2))
    return 1
  }
  const version = opencodeVersion(bin)
  if (!version || satisfies(version, pkg.opencodeRange) !== true) {
    out(
      `OpenCode at ${bin} is version ${version ?? "unknown"}; ralph-loop ${pkg.version} needs ` +
        `${pkg.opencodeRange} (OpenCode would skip the plugin).`,
    )
    return 1
  }
  out(`ralph-loop install: ${command}${args.global ? "" : `  (in ${args.project})`}`)
  if (!runOpencodePlugin(bin, pkg.spec, args.global, args.project)) {
    out("ralph-loop install: `opencode plugin` failed (its output is above); nothing else was changed.")
    return 1
  }
  return finish(args, env, pkg.schemaFile, out)
}

/** The settings file with its $schema (unless there is one), and what to do next. */
function finish(args: CliArgs, env: NodeJS.ProcessEnv, schemaFile: string, out: (line: string) => void): number {
  const written = writeSettingsFile(settingsDir(args, env), schemaFile)
  out(
    written
      ? `ralph-loop install: wrote ${written}`
      : `ralph-loop install: kept the settings file in ${settingsDir(args, env)}`,
  )
  out("Restart OpenCode; then /ralph <task> starts a loop. `ralph-loop doctor` checks the setup.")
  return 0
}
