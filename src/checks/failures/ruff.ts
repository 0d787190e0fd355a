// ruff's concise format (and flake8's, pylint's): `a.py:1:8: F401 [*] `os` imported but unused`.
// Ruff's default, full format is located.ts's shape.
import { LONG_LINE, finding, type Context } from "./text.js"

const LINE = /^([^\s:][^:]*):\d+:\d+: ([A-Z]{1,4}\d{1,4}|SyntaxError|invalid-syntax):? (?:\[\*\] )?(.+)$/

export function ruffFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    const match = LINE.exec(line)
    if (match) found.push(finding(match[1], match[2]!, match[3]!, context))
  }
  return found
}
