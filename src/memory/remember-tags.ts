// `<remember>text</remember>` and `<remember priority>text</remember>` in the model's own text
// (seed 003's notepad). Tags shown as code — in a fenced block, in backticks, or quoted with `>` —
// are examples, not requests, and do not count.
//
// Runs on every text part the model writes, inside OpenCode: every step is linear in the text. The
// fences and quotes are found by a scan of line starts, not by `^\s*` patterns with the `m` flag
// (those retried each line of a blank run to its end: 100 KB of blank lines took 27 s). The scans
// remove exactly what those patterns removed: a fenced block from the first line start of the
// blank run before its opening marker to the end of its closing marker's line, a quote from the
// first line start of the blank run before its `>` to the end of that line.
import type { MemorySection } from "./memory-file.js"

export interface RememberRequest {
  section: Exclude<MemorySection, "staging">
  text: string
}

const OPEN = /<remember(\s+priority)?\s*>/gi
const CLOSE = /<\/remember\s*>/gi
/** Inline code: it stops at the next backtick or line end, so no character is read twice. */
const INLINE_CODE = /`[^`\n]*`/g

export function rememberRequests(text: string): RememberRequest[] {
  if (!/<remember/i.test(text)) return []
  const prose = withoutQuotes(withoutFences(text).replace(INLINE_CODE, ""))
  const requests: RememberRequest[] = []
  OPEN.lastIndex = 0
  for (let open = OPEN.exec(prose); open; open = OPEN.exec(prose)) {
    CLOSE.lastIndex = OPEN.lastIndex
    const close = CLOSE.exec(prose)
    // No closing tag after this one: none after any later one either.
    if (!close) break
    const body = prose.slice(OPEN.lastIndex, close.index).trim()
    if (body !== "") requests.push({ section: open[1] ? "priority" : "working", text: body })
    OPEN.lastIndex = CLOSE.lastIndex
  }
  return requests
}

// One character each, found by a search from a position: JavaScript's own line terminators (where
// `^` matches with the `m` flag, and what `.` does not match) and its `\s`.
const TERMINATOR = /[\n\r\u2028\u2029]/g
const NOT_SPACE = /\S/g
const IS_TERMINATOR = /^[\n\r\u2028\u2029]$/

/** The first line terminator at or after `from` (text.length: none). */
function terminatorFrom(text: string, from: number): number {
  TERMINATOR.lastIndex = from
  return TERMINATOR.test(text) ? TERMINATOR.lastIndex - 1 : text.length
}

/** The first line start at or after `from` (undefined: none). */
function lineStartFrom(text: string, from: number): number | undefined {
  if (from === 0 || IS_TERMINATOR.test(text.charAt(from - 1))) return from
  const terminator = terminatorFrom(text, from)
  return terminator < text.length ? terminator + 1 : undefined
}

/** The first character at or after `from` that is not whitespace (text.length: none). */
function skipSpace(text: string, from: number): number {
  NOT_SPACE.lastIndex = from
  return NOT_SPACE.test(text) ? NOT_SPACE.lastIndex - 1 : text.length
}

/** Where a fence's marker (```` ``` ```` or `~~~`) opens at `at`, if it does. */
const markerAt = (text: string, at: number) =>
  text.startsWith("```", at) ? "```" : text.startsWith("~~~", at) ? "~~~" : undefined

/**
 * The text without its fenced blocks (an opening marker first on its line, up to the first line
 * with the same marker first on it). Every line start is looked at once: the line starts of one
 * blank run share their first character, and a marker without a closing line fails once — after it
 * no line opens with that marker again.
 */
function withoutFences(text: string): string {
  let kept = ""
  let from = 0
  let start = lineStartFrom(text, 0)
  while (start !== undefined) {
    const first = skipSpace(text, start)
    if (first === text.length) break
    const marker = markerAt(text, first)
    const closing = marker === undefined ? undefined : closingMarker(text, first + marker.length, marker)
    if (closing === undefined) {
      start = lineStartFrom(text, first + 1)
      continue
    }
    const lineEnd = text.indexOf("\n", closing + 3)
    const end = lineEnd < 0 ? text.length : lineEnd
    kept += text.slice(from, start)
    from = end
    start = lineStartFrom(text, end)
  }
  return kept + text.slice(from)
}

/** Where the first line at or after `from` whose first non-blank characters are `marker` has them. */
function closingMarker(text: string, from: number, marker: string): number | undefined {
  let start = lineStartFrom(text, from)
  while (start !== undefined) {
    const first = skipSpace(text, start)
    if (first === text.length) return undefined
    if (text.startsWith(marker, first)) return first
    start = lineStartFrom(text, first + 1)
  }
  return undefined
}

/** The text without its quoted lines (`>` first on the line), each up to its line end. */
function withoutQuotes(text: string): string {
  let kept = ""
  let from = 0
  let start = lineStartFrom(text, 0)
  while (start !== undefined) {
    const first = skipSpace(text, start)
    if (first === text.length) break
    if (text.charCodeAt(first) !== 0x3e /* > */) {
      start = lineStartFrom(text, first + 1)
      continue
    }
    const end = terminatorFrom(text, first + 1)
    kept += text.slice(from, start)
    from = end
    start = lineStartFrom(text, end)
  }
  return kept + text.slice(from)
}
