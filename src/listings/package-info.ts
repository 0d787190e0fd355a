// This package as the CLI sees it: its folder, manifest, and the spec that makes OpenCode load it.
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export interface PackageInfo {
  dir: string
  name: string
  version: string
  /** engines.opencode: the OpenCode versions this package is made for. */
  opencodeRange: string
  /**
   * `ralph-loop@file:<dir>`: an npm-style spec OpenCode installs from this folder (the bare name is another package on
   * npm).
   */
  spec: string
  schemaFile: string
}

export function packageInfo(): PackageInfo {
  // dist/cli/package-info.js → the package folder is two levels up.
  const dir = dirname(dirname(dirname(fileURLToPath(import.meta.url))))
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string
    version: string
    engines?: { opencode?: string }
  }
  return {
    dir,
    name: manifest.name,
    version: manifest.version,
    opencodeRange: manifest.engines?.opencode ?? "*",
    spec: `${manifest.name}@file:${dir}`,
    schemaFile: join(dir, "ralph-loop.schema.json"),
  }
}
