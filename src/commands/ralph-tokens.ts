// The words of a /ralph line, split like a shell: where each starts and ends in the line (so flags can
// be cut out of the task exactly), and whether it was quoted (a quoted word is never a flag).
export interface Token {
  text: string
  start: number
  end: number
  /** The token began with a quote, so it is never a flag. */
  quoted: boolean
}

/**
 * Splits like a shell: whitespace separates, '…' and "…" quote (\\ escapes inside "…") — a quote
 * opens only at the start of a word or after `=`, so an apostrophe ("the user's login") is a letter.
 * A bare `--` ends the flags and so the splitting: what follows is the task, verbatim (`-- Support '90s themes`).
 */
export function tokenize(line: string): Token[] | string {
  const tokens: Token[] = []
  let i = 0
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i] as string)) i += 1
    if (i >= line.length) break
    const start = i
    let text = ""
    let quoted = false
    while (i < line.length && !/\s/.test(line[i] as string)) {
      const ch = line[i] as string
      if ((ch === '"' || ch === "'") && (i === start || line[i - 1] === "=")) {
        const close = findClose(line, i + 1, ch)
        if (close < 0) return `unclosed ${ch} quote starting at character ${i + 1}`
        const inner = line.slice(i + 1, close)
        text += ch === '"' ? inner.replace(/\\(["\\])/g, "$1") : inner
        // Only a token that begins with a quote is "quoted": "--force" is text, --flag="x" a flag.
        if (i === start) quoted = true
        i = close + 1
      } else {
        text += ch
        i += 1
      }
    }
    tokens.push({ text, start, end: i, quoted })
    if (line.slice(start, i) === "--") break
  }
  return tokens
}

function findClose(line: string, from: number, quote: string): number {
  for (let i = from; i < line.length; i += 1) {
    if (quote === '"' && line[i] === "\\") i += 1
    else if (line[i] === quote) return i
  }
  return -1
}
