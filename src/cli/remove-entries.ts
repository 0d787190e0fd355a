// Removes entries of a config file's `plugin` array, keeping every comment and the rest of the
// formatting. jsonc-parser's modify(…, undefined) removes an element together with the comments
// between it and its neighbour, so the edits are made here from its syntax tree and scanner: the
// element's own text, one comma beside it, and the line when nothing else is left on it.
// The list edited is the last `plugin` key's, the one OpenCode reads when a file sets it twice.
import { applyEdits, createScanner, parseTree, type Edit, type Node } from "jsonc-parser"
import { pluginProperty } from "../listings/plugin-listings.js"

// jsonc-parser's SyntaxKind values (a const enum in its typings, which verbatimModuleSyntax cannot use).
const COMMA = 5
const COMMENTS_AND_BLANKS = new Set([12, 13, 14, 15])
const EOF = 17

interface Token {
  kind: number
  offset: number
  length: number
}

function significantTokens(text: string): Token[] {
  const scanner = createScanner(text, false)
  const tokens: Token[] = []
  for (let kind: number = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (COMMENTS_AND_BLANKS.has(kind)) continue
    tokens.push({ kind, offset: scanner.getTokenOffset(), length: scanner.getTokenLength() })
  }
  return tokens
}

/** The `plugin` list OpenCode reads. */
const pluginList = (text: string): Node | undefined =>
  pluginProperty(parseTree(text, [], { allowTrailingComma: true }))?.children?.[1]

function removeOne(text: string, index: number): string {
  const array = pluginList(text)
  const node = array?.children?.[index]
  if (!node) return text
  const start = node.offset
  const end = node.offset + node.length
  const tokens = significantTokens(text)
  const after = tokens.find((t) => t.offset >= end)
  const before = [...tokens].reverse().find((t) => t.offset + t.length <= start)
  const edits: Edit[] = [{ offset: start, length: end - start, content: "" }]
  let shift = 0
  if (after?.kind === COMMA) edits.push({ offset: after.offset, length: 1, content: "" })
  else if (before?.kind === COMMA) {
    edits.push({ offset: before.offset, length: 1, content: "" })
    shift = 1
  }
  const next = applyEdits(text, edits)
  // The line the element was on: dropped when only blanks are left on it.
  const at = start - shift
  const lineStart = next.lastIndexOf("\n", at - 1) + 1
  const lineEnd = next.indexOf("\n", at)
  const line = next.slice(lineStart, lineEnd === -1 ? next.length : lineEnd)
  if (line.trim() !== "" || lineEnd === -1) return next
  return next.slice(0, lineStart) + next.slice(lineEnd + 1)
}

/** `text` without the `plugin` entries at `indices`; a list left with only blanks inside becomes `[]`. */
export function removePluginEntries(text: string, indices: number[]): string {
  const next = [...indices].sort((a, b) => b - a).reduce(removeOne, text)
  const array = pluginList(next)
  if (
    array?.type !== "array" ||
    array.children?.length ||
    next.slice(array.offset + 1, array.offset + array.length - 1).trim() !== ""
  )
    return next
  return applyEdits(next, [{ offset: array.offset, length: array.length, content: "[]" }])
}
