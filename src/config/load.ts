// Layered settings: defaults ← global file ← project file ← plugin options. Each layer is checked
// key by key; a bad key is reported (file, key, reason) and the value from the layer below stays.
// Seed 000's form — a "ralph-loop" block in opencode.json(c), which OpenCode drops before plugins
// see it — is read from disk too, just below the ralph-loop file of the same scope.
import { existsSync } from "node:fs"
import { join, relative } from "node:path"
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser"
import { redactingReplacer } from "../files/redact.js"
import { isInside, isStrictlyInside } from "../project/inside.js"
import { OPENCODE_DIR } from "../project/own-files.js"
import { readRegularFileSync } from "../files/regular-file.js"
import { BLOCK_KEY, OPENCODE_FILES, SETTINGS_FILES } from "./files.js"
import { MAX_JSON_DEPTH, tooDeepAt } from "../files/json-depth.js"
import { closest } from "./suggest.js"
import { DEFAULT_SETTINGS, SETTING_KEYS, settingSchemas, type SettingKey, type Settings } from "./schema.js"

export interface ConfigProblem {
  /** Where the bad value came from: a file path (relative to the project when inside it) or "plugin options". */
  source: string
  key?: string
  message: string
}

export interface LoadedSettings {
  settings: Settings
  /** The keys some layer set (the rest are defaults). */
  explicit: Set<SettingKey>
  problems: ConfigProblem[]
  /** The files that were read, in order. */
  files: string[]
}

export interface SettingsSources {
  directory: string
  /** OpenCode's global config directory ($XDG_CONFIG_HOME/opencode). */
  globalDir?: string
  options?: Record<string, unknown> | undefined
}

export { globalConfigDir, SETTINGS_FILES } from "./files.js"

export function loadSettings(sources: SettingsSources): LoadedSettings {
  const problems: ConfigProblem[] = []
  const files: string[] = []
  const explicit = new Set<SettingKey>()
  let settings: Settings = { ...DEFAULT_SETTINGS }
  const display = (file: string) => (isInside(sources.directory, file) ? relative(sources.directory, file) : file)

  const scopes = [
    ...(sources.globalDir
      ? [{ blocks: [sources.globalDir], files: SETTINGS_FILES.map((name) => join(sources.globalDir as string, name)) }]
      : []),
    {
      blocks: [sources.directory, join(sources.directory, OPENCODE_DIR)],
      files: SETTINGS_FILES.map((name) => join(sources.directory, OPENCODE_DIR, name)),
    },
  ]
  for (const scope of scopes) {
    for (const dir of scope.blocks) {
      const file = OPENCODE_FILES.map((name) => join(dir, name)).find((f) => existsSync(f))
      const block = file && readBlock(file)
      if (!file || !block) continue
      files.push(file)
      if ("unreadable" in block)
        problems.push({ source: display(file), message: `${block.unreadable}; its "${BLOCK_KEY}" block is skipped` })
      else
        settings = applyLayer(
          settings,
          block.block,
          `${display(file)} "${BLOCK_KEY}"`,
          problems,
          sources.directory,
          explicit,
        )
    }
    const file = scope.files.find((f) => existsSync(f))
    if (!file) continue
    files.push(file)
    const layer = readLayer(file, display(file), problems)
    if (layer) settings = applyLayer(settings, layer, display(file), problems, sources.directory, explicit)
  }
  if (sources.options !== undefined) {
    if (isPlainObject(sources.options))
      settings = applyLayer(settings, sources.options, "plugin options", problems, sources.directory, explicit)
    else problems.push({ source: "plugin options", message: "must be an object" })
  }
  return { settings, explicit, problems, files }
}

/**
 * The "ralph-loop" block of an OpenCode config file, if it has one. A file with a syntax error that
 * seems to hold a block is skipped whole (jsonc-parser would still hand back a guess at it); its
 * other errors are OpenCode's to report.
 */
function readBlock(file: string): { block: Record<string, unknown> } | { unreadable: string } | undefined {
  try {
    // A link is followed (dotfiles often are links); a FIFO or a folder is not read — a FIFO would
    // be waited on forever. That is OpenCode's file: what is wrong with it is for OpenCode to say.
    const read = readRegularFileSync(file, { follow: true })
    if (!read.ok) return undefined
    const text = read.text
    const deep = tooDeepAt(text)
    if (deep !== undefined)
      return text.includes(`"${BLOCK_KEY}"`) ? { unreadable: nestedTooDeeply(text, deep) } : undefined
    const errors: ParseError[] = []
    const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false })
    const block = isPlainObject(value) ? value[BLOCK_KEY] : undefined
    if (block === undefined && !text.includes(`"${BLOCK_KEY}"`)) return undefined
    const first = errors[0]
    if (first) {
      const { line, column } = position(text, first.offset)
      return {
        unreadable: `has a syntax error (${printParseErrorCode(first.error)} at line ${line}, column ${column})`,
      }
    }
    return isPlainObject(block) ? { block } : undefined
  } catch {
    return undefined
  }
}

function readLayer(file: string, source: string, problems: ConfigProblem[]): Record<string, unknown> | undefined {
  const read = readRegularFileSync(file, { follow: true })
  if (!read.ok) {
    problems.push({ source, message: `${read.message}; the whole file is ignored` })
    return undefined
  }
  const text = read.text
  // Parsed by recursion: a text nested past the limit would throw RangeError out of the parser.
  const deep = tooDeepAt(text)
  if (deep !== undefined) {
    problems.push({ source, message: `${nestedTooDeeply(text, deep)}; the whole file is ignored` })
    return undefined
  }
  const errors: ParseError[] = []
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false })
  if (errors.length > 0) {
    const first = errors[0] as ParseError
    const { line, column } = position(text, first.offset)
    problems.push({
      source,
      message:
        `is not valid JSONC (${printParseErrorCode(first.error)} at line ${line}, column ${column}); the ` +
        `whole file is ignored`,
    })
    return undefined
  }
  if (!isPlainObject(value)) {
    problems.push({ source, message: "must contain a JSON object; the whole file is ignored" })
    return undefined
  }
  return value
}

function applyLayer(
  base: Settings,
  layer: Record<string, unknown>,
  source: string,
  problems: ConfigProblem[],
  directory: string,
  explicit: Set<SettingKey>,
): Settings {
  const next: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(layer)) {
    if (key === "$schema") continue
    if (!(SETTING_KEYS as string[]).includes(key)) {
      problems.push({ source, key, message: `unknown key (ignored)${suggest(key)}` })
      continue
    }
    const result = settingSchemas[key as SettingKey].safeParse(value)
    // Strictly inside: the project root itself would make the whole project "the loop's files".
    if (result.success && key === "summaryPath" && !isStrictlyInside(directory, result.data as string))
      problems.push({
        source,
        key,
        message: `${describe(value)} points outside the project; using ${JSON.stringify(base.summaryPath)}`,
      })
    else if (result.success) {
      next[key] = result.data
      explicit.add(key as SettingKey)
    } else {
      const issue = result.error.issues[0]
      // A key inside an object setting is named with it ("notify.webhook"); an array's index is not.
      const inside = typeof issue?.path[0] === "string" ? issue.path.filter((p) => typeof p === "string") : []
      problems.push({
        source,
        key: [key, ...inside].join("."),
        message:
          `${issue?.message ?? "invalid value"} (got ${describe(value)}); ` +
          `using ${JSON.stringify(base[key as SettingKey], redactingReplacer)}`,
      })
    }
  }
  return next as Settings
}

export function formatProblem(problem: ConfigProblem): string {
  return problem.key ? `${problem.source}: "${problem.key}" ${problem.message}` : `${problem.source} ${problem.message}`
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/**
 * A bad value as a message shows it: short, and without the webhook or any URL's userinfo, path and query
 * (src/files/redact.ts).
 */
function describe(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value, redactingReplacer) ?? String(value)
  } catch {
    // nested too deeply for JSON.stringify (plugin options come from OpenCode, unchecked)
    return "a value that cannot be shown"
  }
  return text.length > 40 ? `${text.slice(0, 37)}...` : text
}

function nestedTooDeeply(text: string, offset: number): string {
  const { line, column } = position(text, offset)
  return `is nested too deeply (more than ${MAX_JSON_DEPTH} levels of brackets, at line ${line}, column ${column})`
}

function suggest(key: string): string {
  const match = closest(key, SETTING_KEYS)
  return match ? `; did you mean "${match}"?` : ""
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n")
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 }
}
