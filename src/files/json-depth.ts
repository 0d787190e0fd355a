// How deep a JSON(C) text nests, found before it is parsed: jsonc-parser parses by recursion, and
// 100,000 nested brackets throw RangeError (a full stack) out of it. One pass of its scanner (no
// recursion; strings and comments are skipped). Pure.
import { createScanner } from "jsonc-parser"

/** Far beyond any settings or plan file (theirs nest a few levels), far below where parsing overflows. */
export const MAX_JSON_DEPTH = 256

/** jsonc-parser's SyntaxKind values (a const enum, which this build cannot import). */
const TOKEN = { openBrace: 1, closeBrace: 2, openBracket: 3, closeBracket: 4, eof: 17 } as const

/**
 * The offset of the first `{` or `[` that opens more than `max` levels, or undefined. A closing
 * bracket counts only when it closes the innermost open one (as the parser reads it): a text with
 * stray closers is never judged shallower than the parser would go.
 */
export function tooDeepAt(text: string, max = MAX_JSON_DEPTH): number | undefined {
  const scanner = createScanner(text, true)
  const open: number[] = []
  for (let token = scanner.scan(); token !== TOKEN.eof; token = scanner.scan()) {
    if (token === TOKEN.openBrace || token === TOKEN.openBracket) {
      open.push(token)
      if (open.length > max) return scanner.getTokenOffset()
    } else if (
      (token === TOKEN.closeBrace && open.at(-1) === TOKEN.openBrace) ||
      (token === TOKEN.closeBracket && open.at(-1) === TOKEN.openBracket)
    ) {
      open.pop()
    }
  }
  return undefined
}
