// Diagnostics whose location is on the line after their head, as rustc, clippy and ruff (its
// default, full format) print them:
//   error[E0425]: cannot find value `x` in this scope      F401 [*] `os` imported but unused
//     --> src/lib.rs:3:5                                     --> a.py:1:8
// Notes and help (`note: …`, `help: …`) are explanations, not findings.
import { LONG_LINE, finding, withoutPosition, type Context } from "./text.js"

const RUSTC = /^(error|warning)(?:\[([A-Za-z]+\d+)\])?: (.+)$/
const RUFF = /^([A-Z]{1,4}\d{1,4}) (?:\[\*\] )?(.+)$/
const NAMED = /^([a-z][a-z-]*[a-z]): (.+)$/

export function locatedFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  let head: { rule: string; message: string } | undefined
  for (const line of lines) {
    if (line.length > LONG_LINE) {
      head = undefined
      continue
    }
    const text = line.trimStart()
    if (head && text.startsWith("--> "))
      found.push(finding(withoutPosition(text.slice(4).trim()), head.rule, head.message, context))
    head = line === text ? headOf(line) : undefined
  }
  return found
}

function headOf(line: string): { rule: string; message: string } | undefined {
  const rustc = RUSTC.exec(line)
  if (rustc) return { rule: rustc[2] ?? rustc[1]!, message: rustc[3]! }
  const ruff = RUFF.exec(line)
  if (ruff) return { rule: ruff[1]!, message: ruff[2]! }
  const named = NAMED.exec(line)
  if (named && named[1] !== "note" && named[1] !== "help") return { rule: named[1]!, message: named[2]! }
  return undefined
}
