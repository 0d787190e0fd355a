// ESLint, in its three common formats. Stylish (the default): a file's path alone on a line, then
// `  3:7  error  'x' is assigned a value but never used  no-unused-vars` rows (no rule for a parse
// error). Unix: `/abs/src/a.js:3:7: 'x' is assigned … [Error/no-unused-vars]`. JSON (`-f json`): a
// list of files and their messages, read with a scanner that tolerates a cut start (the check keeps
// the end of its output) and never parses the sources it embeds.
import { LONG_LINE, finding, type Context } from "./text.js"

const UNIX_AT = /^(.+?):\d+:\d+: /

export function eslintFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  let file: string | undefined
  for (const line of lines) {
    if (line.length > LONG_LINE) {
      if (line.includes('"filePath":')) found.push(...eslintJson(line, context))
      continue
    }
    if (line.trim() === "") {
      file = undefined
      continue
    }
    const row = stylishRow(line)
    if (row) {
      found.push(finding(file, row.rule ?? row.severity, row.message, context))
      continue
    }
    const unix = unixRow(line)
    if (unix) found.push(finding(unix.file, unix.rule, unix.message, context))
    else if (line.startsWith("[{") || line.includes('"filePath":')) found.push(...eslintJson(line, context))
    else if (!line.startsWith(" ")) file = line.trim()
  }
  return found
}

/** `/abs/src/a.js:3:7: message [Error/rule]`, read from both ends (a pattern over the middle would backtrack). */
function unixRow(line: string): { file: string; rule: string; message: string } | undefined {
  if (!line.endsWith("]")) return undefined
  const open = line.lastIndexOf(" [")
  const tag = line.slice(open + 2, -1)
  if (open < 0 || !(tag.startsWith("Error") || tag.startsWith("Warning"))) return undefined
  const slash = tag.indexOf("/")
  if (slash < 0 && tag !== "Error" && tag !== "Warning") return undefined
  const head = line.slice(0, open)
  const at = UNIX_AT.exec(head)
  if (!at) return undefined
  return { file: at[1]!, rule: slash >= 0 ? tag.slice(slash + 1) : "error", message: head.slice(at[0].length) }
}

/** `  3:7  error  message  rule`: columns two or more spaces apart. */
function stylishRow(line: string): { severity: string; message: string; rule?: string } | undefined {
  if (!line.startsWith(" ")) return undefined
  const cells = line.trim().split(/ {2,}/)
  const [position, severity] = cells
  if (cells.length < 3 || !/^\d+:\d+$/.test(position!) || (severity !== "error" && severity !== "warning"))
    return undefined
  const last = cells.at(-1)!
  const rule = cells.length > 3 && /^[@\w/-]+$/.test(last) ? last : undefined
  return { severity, message: cells.slice(2, rule ? -1 : undefined).join("  "), ...(rule ? { rule } : {}) }
}

/** Each message of ESLint's JSON output, under the last `"filePath"` before it; suppressed ones left out. */
function eslintJson(text: string, context: Context): string[] {
  const found: string[] = []
  const events = [
    ...keys(text, "filePath"),
    ...keys(text, "ruleId"),
    ...keys(text, "suppressedMessages"),
    ...keys(text, "errorCount"),
  ].sort((a, b) => a.at - b.at)
  const messages = keys(text, "message")
  let next = 0
  let file: string | undefined
  let suppressed = false
  for (const event of events) {
    const value = event.at + event.key.length + 3
    if (event.key === "filePath") file = jsonString(text, value)?.text
    else if (event.key === "suppressedMessages") suppressed = true
    else if (event.key === "errorCount") suppressed = false
    else if (!suppressed) {
      while (next < messages.length && messages[next]!.at < event.at) next += 1
      const message = messages[next]
      const rule = text.startsWith("null", value) ? undefined : jsonString(text, value)?.text
      const words = message ? jsonString(text, message.at + "message".length + 3)?.text : undefined
      if (words !== undefined) found.push(finding(file, rule ?? "error", words, context))
    }
  }
  return found
}

/** Where `"key":` stands as a key of an object (after `{` or `,`): a string's escaped quotes never match. */
function keys(text: string, key: string): Array<{ key: string; at: number }> {
  const found: Array<{ key: string; at: number }> = []
  const needle = `"${key}":`
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) {
    const before = text[i - 1]
    if (before === "{" || before === "," || before === " " || before === "\n") found.push({ key, at: i })
  }
  return found
}

/** The JSON string starting at `start`, unescaped. */
function jsonString(text: string, start: number): { text: string } | undefined {
  if (text[start] !== '"') return undefined
  for (let j = start + 1; j < text.length; j += 1) {
    if (text[j] === "\\") j += 1
    else if (text[j] === '"') {
      try {
        return { text: JSON.parse(text.slice(start, j + 1)) as string }
      } catch {
        return undefined
      }
    }
  }
  return undefined
}
