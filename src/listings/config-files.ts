// OpenCode's config files that can list plugins, by scope. Global: the files in
// $XDG_CONFIG_HOME/opencode. Project: opencode.json[c] and .opencode/opencode.json[c] in the project
// folder and each folder above it up to its git work tree's root (OpenCode's own search; without
// git, the project folder alone). The TUI half is listed in OpenCode's TUI config files, tui.json[c],
// found the same way, plus the file OPENCODE_TUI_CONFIG names.
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { globalConfigDir } from "../config/load.js"

export type Scope = "global" | "project"
/** Which half of the package a config file loads: the server plugin (opencode.json) or the TUI plugin (tui.json). */
export type Half = "server" | "tui"

export interface ConfigFile {
  scope: Scope
  file: string
  half: Half
}

const GLOBAL_NAMES: Record<Half, string[]> = {
  server: ["opencode.json", "opencode.jsonc", "config.json"],
  tui: ["tui.json", "tui.jsonc"],
}
const PROJECT_NAMES: Record<Half, string[]> = {
  server: ["opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"],
  tui: ["tui.json", "tui.jsonc", ".opencode/tui.json", ".opencode/tui.jsonc"],
}

export function globalConfigFiles(env: NodeJS.ProcessEnv = process.env, half: Half = "server"): ConfigFile[] {
  const dir = globalConfigDir(env)
  const named = half === "tui" && env.OPENCODE_TUI_CONFIG ? [env.OPENCODE_TUI_CONFIG] : []
  return [...GLOBAL_NAMES[half].map((name) => join(dir, name)), ...named]
    .filter((file) => existsSync(file))
    .map((file) => ({ scope: "global", file, half }))
}

/** The project folder and the folders above it up to the git root (only the project folder outside git). */
export function projectFolders(project: string): string[] {
  const folders: string[] = []
  for (let dir = project; ; dir = dirname(dir)) {
    folders.push(dir)
    if (existsSync(join(dir, ".git"))) return folders
    if (dirname(dir) === dir) return [project]
  }
}

export function projectConfigFiles(
  project: string,
  env: NodeJS.ProcessEnv = process.env,
  half: Half = "server",
): ConfigFile[] {
  const globalDir = globalConfigDir(env)
  return projectFolders(project)
    .flatMap((dir) => PROJECT_NAMES[half].map((name) => join(dir, name)))
    .filter((file) => existsSync(file) && dirname(file) !== globalDir)
    .map((file) => ({ scope: "project", file, half }))
}

/** Every config file of a scope that can list the package, both halves'. */
export function scopeConfigFiles(global: boolean, project: string, env: NodeJS.ProcessEnv = process.env): ConfigFile[] {
  const of = (half: Half) => (global ? globalConfigFiles(env, half) : projectConfigFiles(project, env, half))
  return [...of("server"), ...of("tui")]
}
