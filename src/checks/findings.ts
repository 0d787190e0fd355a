// What a check's output says about which files: each finding (file and severity) in the formats
// of tsc, ESLint (stylish, unix/compact, --format json), ruff (concise and full: E/F codes are
// errors, W warnings, the rest info) and any `path:line:col: error|warning` tool; and the files a
// failing output merely mentions (`src/a.js: error: file missing`), for the gotchas and lessons
// that remember them. Paths come back relative to the project. Pure.
import { isAbsolute, relative } from "node:path"

type Severity = "error" | "warning" | "info"

export interface Finding {
  path: string
  severity: Severity
}

const TSC = /^(.+?)\(\d+,\d+\): (error|warning) TS\d+/
const COLON = /^(.+?):\d+:\d+:?\s+(?:-\s+)?(error|warning)\b/i
/** ESLint's unix format up to its message: `path:line:col: ` (the rest is read by eslintUnix). */
const ESLINT_UNIX_HEAD = /^(.+?):\d+:\d+: /
const RUFF_CONCISE = /^(.+?):\d+:\d+: ([A-Z]+\d+)\b/
const RUFF_CODE = /^([A-Z]+\d+) (?:\[\*\] )?\S/
const RUFF_ARROW = /^\s*--> (.+?):\d+:\d+/
const STYLISH_ROW = /^\s+\d+:\d+\s+(error|warning)\s/
// Up to the first slash, not any: with any, each slash of a long line tried the rest of it again.
const STYLISH_FILE = /^(?:[A-Za-z]:)?[^\s:\\/]*[\\/][^\s]*\.\w+$/

/** Ruff's severity of a rule code (seed 004): E and F are errors, W warnings, everything else info. */
const ruffSeverity = (code: string): Severity =>
  /^[EF]\d/.test(code) ? "error" : code.startsWith("W") ? "warning" : "info"

/** Every finding the output names a file for, in order; `directory` makes absolute paths relative. */
export function findingsOf(output: string, directory?: string): Finding[] {
  const json = eslintJson(output)
  const found = json ?? lineFindings(output)
  return found.flatMap((f) => {
    const path = projectPath(f.path, directory)
    return path === undefined ? [] : [{ path, severity: f.severity }]
  })
}

function lineFindings(output: string): Finding[] {
  const found: Finding[] = []
  let stylishFile: string | undefined
  let ruffCode: string | undefined
  for (const line of output.split("\n")) {
    const tsc = TSC.exec(line)
    const ruff = !tsc ? RUFF_CONCISE.exec(line) : null
    const unix = !tsc && !ruff ? eslintUnix(line) : undefined
    const colon = !tsc && !ruff && !unix ? COLON.exec(line) : null
    const stylish = STYLISH_ROW.exec(line)
    const arrow = RUFF_ARROW.exec(line)
    if (tsc?.[1]) found.push({ path: tsc[1], severity: tsc[2] === "error" ? "error" : "warning" })
    else if (ruff?.[1] && ruff[2]) found.push({ path: ruff[1], severity: ruffSeverity(ruff[2]) })
    else if (unix) found.push(unix)
    else if (colon?.[1])
      found.push({ path: colon[1], severity: colon[2]?.toLowerCase() === "error" ? "error" : "warning" })
    else if (stylish && stylishFile)
      found.push({ path: stylishFile, severity: stylish[1] === "error" ? "error" : "warning" })
    else if (arrow?.[1] && ruffCode) {
      found.push({ path: arrow[1], severity: ruffSeverity(ruffCode) })
      ruffCode = undefined
    }
    if (STYLISH_FILE.test(line.trim()) && !line.startsWith(" ")) stylishFile = line.trim()
    else if (line.trim() === "") stylishFile = undefined
    const code = RUFF_CODE.exec(line)
    if (code?.[1]) ruffCode = code[1]
  }
  return found
}

/**
 * ESLint's unix format, `path:line:col: message [Error/rule]`: what the pattern
 * `^(.+?):\d+:\d+: .* \[(Error|Warning)\/[^\]]*\]$` matched — the path before the first
 * `:line:col: `, the severity of the last ` [Error/` or ` [Warning/` whose bracket runs to the line's
 * end — found without its backtracking (cubic: a 20 KB line of `:0:0: ` and ` [Error/` took 30 s).
 */
function eslintUnix(line: string): Finding | undefined {
  if (!line.endsWith("]")) return undefined
  const head = ESLINT_UNIX_HEAD.exec(line)
  if (!head?.[1]) return undefined
  const message = head[0].length
  // The message (`.*`) ends at a line terminator; the bracket's text holds no `]`.
  const terminator = line.slice(message).search(/[\r\u2028\u2029]/)
  const last = (terminator < 0 ? line.length : message + terminator) - 1
  const error = line.lastIndexOf(" [Error/", last)
  const warning = line.lastIndexOf(" [Warning/", last)
  const bracket = Math.max(error, warning)
  if (bracket < message || bracket < line.lastIndexOf("]", line.length - 2)) return undefined
  return { path: head[1], severity: bracket === error ? "error" : "warning" }
}

/** ESLint's `--format json`: a list of files, each with its messages (severity 2 error, 1 warning). */
function eslintJson(output: string): Finding[] | undefined {
  const text = output.trim()
  if (!text.startsWith("[") || !text.endsWith("]")) return undefined
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return undefined
  }
  if (
    !Array.isArray(data) ||
    !data.every(
      (f) => typeof f === "object" && f !== null && typeof f.filePath === "string" && Array.isArray(f.messages),
    )
  )
    return undefined
  return (data as Array<{ filePath: string; messages: Array<{ severity?: unknown }> }>).flatMap((file) =>
    file.messages
      .filter((m) => m.severity === 1 || m.severity === 2)
      .map((m) => ({ path: file.filePath, severity: m.severity === 2 ? ("error" as const) : ("warning" as const) })),
  )
}

// A path-like word: with a folder (`src/a.js`, `./a/b.ts`, `/abs/x.py`), or a bare file name right
// before `:` or `(` (`a.js:3`, `a.ts(1,2)`). The extension starts with a letter (not `1.2.3`).
/** A path with a folder (`src/a.ts`, `./a/b.js`), or a bare file name before `:` or `(`. */
const IN_FOLDER = /(?:\.{1,2}\/|\/)?(?:[\w@.-]+\/)+[\w@-][\w@.-]*\.[A-Za-z]\w{0,7}/
const BARE_FILE = /[\w@-][\w@.-]*\.[A-Za-z]\w{0,7}(?=[:(])/
const MENTION = new RegExp(`(?:^|[\\s"'\`([<])(${IN_FOLDER.source}|${BARE_FILE.source})(?=$|[\\s"'\`),:;\\]>(])`, "g")

/** The files a check's output names (at most `limit`), relative to the project; none outside it. */
export function mentionedFiles(output: string, directory?: string, limit = 20): string[] {
  const found = new Set<string>()
  for (const line of output.split("\n")) {
    // `\b`: a scheme is tried where a word begins, not from each of its letters (a long word was read
    // to its end once per letter); the matches are the same.
    for (const match of line.replace(/\b\w+:\/\/\S*/g, " ").matchAll(MENTION)) {
      const path = projectPath(match[1] as string, directory)
      if (path !== undefined) found.add(path)
      if (found.size >= limit) return [...found]
    }
  }
  return [...found]
}

/** `path` relative to the project: absolute ones inside `directory` made relative, `./` dropped; outside: undefined. */
function projectPath(path: string, directory: string | undefined): string | undefined {
  if (isAbsolute(path)) {
    if (!directory) return path
    const inside = relative(directory, path)
    return inside.startsWith("..") || isAbsolute(inside) || inside === "" ? undefined : inside.split("\\").join("/")
  }
  const clean = path.replace(/^(\.\/)+/, "")
  return clean.startsWith("../") ? undefined : clean
}
