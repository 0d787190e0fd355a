// What every runner's parser shares: the output as plain lines, paths as the project names them,
// numbers folded out of messages, identities of a bounded length. Pure, linear in the text.

export interface Context {
  /** The project: absolute paths inside it become relative. */
  directory?: string | undefined
}

/** A parser reads the output's lines and returns the failures it recognises (none: not its shape). */
export type Parser = (lines: readonly string[], context: Context) => string[]

/** Lines longer than this are no runner's result line (a minified bundle, a JSON dump): parsers skip them. */
export const LONG_LINE = 4_096

const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g

/** The output without colours and terminal codes. */
export const stripAnsi = (text: string): string => text.replace(OSC, "").replace(CSI, "")

// A temporary folder's own name varies from run to run: /tmp/<name>/, macOS's
// /var/folders/xx/yyyy/T/<name>/, Windows' …/AppData/Local/Temp/<name>/.
const UNIX_TMP = /^(?:\/private)?\/(?:tmp|var\/tmp|var\/folders\/[^/]+\/[^/]+\/T)\/[^/]+(?:\/|$)/
const WINDOWS_TMP = /^[A-Za-z]:\/Users\/[^/]+\/AppData\/Local\/Temp\/[^/]+(?:\/|$)/
const TMP = new RegExp(`${UNIX_TMP.source}|${WINDOWS_TMP.source}`, "i")

/**
 * A path as the project names it: `file://` and `./` dropped, inside `directory` or a temporary folder made relative.
 */
export function projectPath(raw: string, directory?: string): string {
  let path = raw.startsWith("file://") ? raw.slice("file://".length) : raw
  path = path.replace(/\\/g, "/")
  if (/^\/[A-Za-z]:\//.test(path)) path = path.slice(1)
  const dir = directory?.replace(/\\/g, "/").replace(/\/+$/, "")
  if (dir && path.startsWith(`${dir}/`)) return path.slice(dir.length + 1)
  if (dir && path === dir) return "."
  const tmp = TMP.exec(path)
  if (tmp) return path.slice(tmp[0].length) || "."
  while (path.startsWith("./")) path = path.slice(2)
  return path
}

/** `path:12:5` or `path:12` → `path` (a location's line and column are not part of what failed). */
export function withoutPosition(location: string): string {
  let end = location.length
  for (let colons = 0; colons < 2; colons += 1) {
    const colon = location.lastIndexOf(":", end - 1)
    if (colon <= 0 || !/^\d+$/.test(location.slice(colon + 1, end))) break
    end = colon
  }
  return location.slice(0, end)
}

/**
 * A message without its numbers (`Expected 2 arguments, but got 3.` → `Expected # arguments, but got #`) and without a
 * final period.
 */
function foldMessage(message: string): string {
  return message
    .replace(/(?<![\w.])\d+(?:\.\d+)?(?!\w)/g, "#")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\.$/, "")
}

/** `<file> <rule>: <message>`, the identity of a linter's or compiler's finding. */
export function finding(file: string | undefined, rule: string, message: string, context: Context): string {
  const what = `${rule}: ${foldMessage(message)}`
  return file ? `${projectPath(file, context.directory)} ${what}` : what
}

const MAX_IDENTITY = 240

/** An identity of a bounded length: a long one keeps its start and a hash of the whole. */
export function bounded(identity: string): string {
  return identity.length <= MAX_IDENTITY ? identity : `${identity.slice(0, 200)}… #${hash(identity)}`
}

/** FNV-1a, twice with different seeds: 16 hex digits. Not cryptographic, only stable. */
export function hash(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0")
}
