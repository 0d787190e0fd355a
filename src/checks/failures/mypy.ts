// mypy: `a.py:3: error: Incompatible types in assignment (…)  [assignment]` (`a.py:3:5:` with
// column numbers shown); gcc and clang print the same shape (`a.c:3:5: error: … [-Wformat]`).
// Notes (`note:`) explain an error: left out.
import { LONG_LINE, finding, type Context } from "./text.js"

const LINE = /^([^\s:][^:]*):\d+(?::\d+)?: (error|warning|fatal error): (.+)$/

export function mypyFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    const match = LINE.exec(line)
    if (!match) continue
    let message = match[3]!
    let rule = match[2]!
    // The code at the end: mypy's `  [assignment]`, gcc's ` [-Wformat]`.
    const open = message.lastIndexOf(" [")
    if (open > 0 && message.endsWith("]") && /^[\w-]+$/.test(message.slice(open + 2, -1))) {
      rule = message.slice(open + 2, -1)
      message = message.slice(0, open)
    }
    found.push(finding(match[1], rule, message, context))
  }
  return found
}
