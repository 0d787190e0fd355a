// OpenCode's config files that can list plugins, by scope. Global: the files in
// $XDG_CONFIG_HOME/opencode. Project: opencode.json[c] and .opencode/opencode.json[c] in the project
// folder and each folder above it up to its git work tree's root (OpenCode's own search; without
// git, the project folder alone).
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { globalConfigDir } from "../config/load.js"

export type Scope = "global" | "project"

export interface ConfigFile {
  scope: Scope
  file: string
}

const GLOBAL_NAMES = ["opencode.json", "opencode.jsonc", "config.json"]
const PROJECT_NAMES = ["opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"]

export function globalConfigFiles(env: NodeJS.ProcessEnv = process.env): ConfigFile[] {
  const dir = globalConfigDir(env)
  return GLOBAL_NAMES.map((name) => join(dir, name))
    .filter((file) => existsSync(file))
    .map((file) => ({ scope: "global", file }))
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

export function projectConfigFiles(project: string, env: NodeJS.ProcessEnv = process.env): ConfigFile[] {
  const globalDir = globalConfigDir(env)
  return projectFolders(project)
    .flatMap((dir) => PROJECT_NAMES.map((name) => join(dir, name)))
    .filter((file) => existsSync(file) && dirname(file) !== globalDir)
    .map((file) => ({ scope: "project", file }))
}
