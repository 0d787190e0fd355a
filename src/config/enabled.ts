// `enabled: false` in the settings switches the plugin off as RALPH_LOOP_DISABLE=1 does — no
// commands, no hooks — from OpenCode's start. Decided at boot, before the loader (and zod) would
// load, so only `enabled` is read: from the same layers in the same order (global block, global
// file, project blocks, project file, plugin options), the last one that sets it winning. A file that
// does not parse says nothing here; the loader reports it once the plugin runs.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { parse, type ParseError } from "jsonc-parser"
import { OPENCODE_DIR } from "../project/own-files.js"
import { readRegularFileSync } from "../files/regular-file.js"
import { BLOCK_KEY, OPENCODE_FILES, SETTINGS_FILES } from "./files.js"

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

function readJsonc(file: string): Record<string, unknown> | undefined {
  // Regular files only (a link is followed): a FIFO would hold OpenCode's start forever.
  const read = readRegularFileSync(file, { follow: true })
  if (!read.ok) return undefined
  try {
    const errors: ParseError[] = []
    const value: unknown = parse(read.text, errors, { allowTrailingComma: true })
    return errors.length === 0 ? record(value) : undefined
  } catch {
    return undefined
  }
}

const first = (dir: string, names: readonly string[]) =>
  names.map((name) => join(dir, name)).find((file) => existsSync(file))

export function enabledBySettings(directory: string, globalDir: string, options: unknown): boolean {
  const layers: Array<Record<string, unknown> | undefined> = []
  const scopes = [
    { blocks: [globalDir], file: first(globalDir, SETTINGS_FILES) },
    { blocks: [directory, join(directory, OPENCODE_DIR)], file: first(join(directory, OPENCODE_DIR), SETTINGS_FILES) },
  ]
  for (const scope of scopes) {
    for (const dir of scope.blocks) {
      const file = first(dir, OPENCODE_FILES)
      layers.push(file ? record(readJsonc(file)?.[BLOCK_KEY]) : undefined)
    }
    layers.push(scope.file ? readJsonc(scope.file) : undefined)
  }
  layers.push(record(options))
  let enabled = true
  for (const layer of layers) if (typeof layer?.enabled === "boolean") enabled = layer.enabled
  return enabled
}
