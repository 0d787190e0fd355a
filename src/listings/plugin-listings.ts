// Which entries of a config file's `plugin` list are ralph-loop, and what each spec reaches:
// npm-style specs by their package name (as OpenCode matches them), paths and file:// URLs by the
// package.json they lead to.
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs"
import { dirname, isAbsolute, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { parseTree, getNodeValue, type Node, type ParseError } from "jsonc-parser"
import type { ConfigFile } from "./config-files.js"

export type Reach =
  | { kind: "this" } // this package
  | { kind: "copy"; dir: string; version: string } // another ralph-loop folder
  | { kind: "npm" } // the npm registry's `ralph-loop`: a different package
  | { kind: "missing"; path: string } // a file: spec whose folder is not there

export interface Listing extends ConfigFile {
  /** Position in the `plugin` array OpenCode reads (the last `plugin` key's). */
  index: number
  spec: string
  options?: Record<string, unknown>
  reach: Reach
  /** The node of the entry in the file's syntax tree (its offset and length). */
  node: Node
}

export interface ConfigRead {
  text: string
  tree: Node | undefined
  error?: string
}

export function readConfig(file: string): ConfigRead {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return {
      text: "",
      tree: undefined,
      error: code === "EISDIR" ? "a folder, not a file" : `not readable (${code ?? String(error)})`,
    }
  }
  const errors: ParseError[] = []
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false })
  return errors.length > 0 ? { text, tree, error: `not valid JSONC at offset ${errors[0]?.offset}` } : { text, tree }
}

/** `name@version` → name (scoped names too); undefined for paths and URLs. */
export function npmName(spec: string): string | undefined {
  if (/^(\.{1,2}[\\/]|[\\/]|[A-Za-z]:[\\/]|file:\/\/|~)/.test(spec)) return undefined
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0)
  return at > 0 ? spec.slice(0, at) : spec
}

function ralphPackageAbove(path: string): string | undefined {
  let dir = existsSync(path) && statSync(path).isDirectory() ? path : dirname(path)
  for (let depth = 0; depth < 4; depth += 1) {
    const manifest = join(dir, "package.json")
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "ralph-loop") return dir
      } catch {
        // not readable: not ours
      }
      return undefined
    }
    if (dirname(dir) === dir) return undefined
    dir = dirname(dir)
  }
  return undefined
}

function reachOfFolder(dir: string, thisDir: string): Reach {
  if (realpathSync(dir) === realpathSync(thisDir)) return { kind: "this" }
  const version = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: string }).version ?? "?"
  return { kind: "copy", dir, version }
}

/** What `spec` (from a config file in `configDir`) reaches, or undefined when it is not ralph-loop. */
export function reachOf(spec: string, configDir: string, thisDir: string): Reach | undefined {
  const name = npmName(spec)
  if (name !== undefined) {
    if (name !== "ralph-loop") return undefined
    const version = spec.slice(name.length + 1)
    if (!version.startsWith("file:")) return { kind: "npm" }
    const path = resolve(configDir, version.slice("file:".length))
    const dir = existsSync(path) ? ralphPackageAbove(path) : undefined
    return dir ? reachOfFolder(dir, thisDir) : { kind: "missing", path }
  }
  const path = spec.startsWith("file://") ? fileURLToPath(spec) : isAbsolute(spec) ? spec : resolve(configDir, spec)
  if (!existsSync(path)) return undefined
  const dir = ralphPackageAbove(path)
  return dir ? reachOfFolder(dir, thisDir) : undefined
}

/** A `plugin` entry whose spec could not be followed (`file://host/x`): it may or may not be ralph-loop. */
export interface UnclearEntry extends ConfigFile {
  spec: string
  problem: string
}

export interface Listings {
  /** The ralph-loop entries of the `plugin` list OpenCode reads. */
  listings: Listing[]
  unclear: UnclearEntry[]
  /** How often the top-level object sets `plugin` (OpenCode reads the last). */
  pluginKeys: number
}

/** The top-level `plugin` properties of a config file, in order. */
function pluginProperties(tree: Node | undefined): Node[] {
  if (tree?.type !== "object") return []
  return (tree.children ?? []).filter(
    (property) => property.children?.length === 2 && property.children[0]?.value === "plugin",
  )
}

/** The `plugin` property OpenCode reads: the last one, as with JSON.parse (OpenCode 1.18 checked). */
export function pluginProperty(tree: Node | undefined): Node | undefined {
  return pluginProperties(tree).at(-1)
}

/** The ralph-loop entries of one config file, and the entries it cannot tell about. */
export function listingsIn(config: ConfigFile, read: ConfigRead, thisDir: string): Listings {
  const properties = pluginProperties(read.tree)
  const array = properties.at(-1)?.children?.[1]
  const found: Listings = { listings: [], unclear: [], pluginKeys: properties.length }
  if (array?.type !== "array") return found
  array.children?.forEach((node, index) => {
    const value: unknown = getNodeValue(node)
    const spec =
      typeof value === "string" ? value : Array.isArray(value) && typeof value[0] === "string" ? value[0] : undefined
    if (spec === undefined) return
    let reach: Reach | undefined
    try {
      reach = reachOf(spec, dirname(config.file), thisDir)
    } catch (error) {
      found.unclear.push({ ...config, spec, problem: error instanceof Error ? error.message : String(error) })
      return
    }
    if (!reach) return
    const options =
      Array.isArray(value) && typeof value[1] === "object" && value[1] !== null
        ? (value[1] as Record<string, unknown>)
        : undefined
    found.listings.push({ ...config, index, spec, ...(options ? { options } : {}), reach, node })
  })
  return found
}

/** The ralph-loop entries of every file in `configs` (a file that cannot be read lists none). */
export function listingsOf(configs: ConfigFile[], thisDir: string): Listing[] {
  return configs.flatMap((config) => listingsIn(config, readConfig(config.file), thisDir).listings)
}

/**
 * The key OpenCode 1.18 merges plugin entries by: an npm-style spec's package name, a path's file://
 * URL (resolved against the config's folder, links not followed). Entries of one key load once (the
 * later wins); each other key loads a copy of its own (see src/host/instance-claim.ts).
 */
export function loadKey(spec: string, configDir: string): string {
  const name = npmName(spec)
  if (name !== undefined) return name
  if (spec.startsWith("file://")) return spec
  return pathToFileURL(isAbsolute(spec) ? spec : resolve(configDir, spec)).href
}
