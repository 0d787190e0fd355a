// pytest (default and -q): the short test summary's `FAILED test_a.py::TestX::test_y[1-2] - assert …`
// and `ERROR test_b.py - NameError …` lines give the node ids. Without that summary (-rN): -v's
// `test_a.py::test_y FAILED [ 50%]` lines; without either, the `____ TestX.test_y ____` heads of the
// FAILURES and ERRORS sections.
import { LONG_LINE, projectPath, type Context } from "./text.js"

export function pytestFailures(lines: readonly string[], context: Context): string[] {
  const summary: string[] = []
  const verbose: string[] = []
  const heads: string[] = []
  let section = false
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    if (line.startsWith("FAILED ") || line.startsWith("ERROR ")) {
      const id = nodeId(line.slice(line.indexOf(" ") + 1), context)
      if (id) summary.push(id)
      continue
    }
    const verdict = line.indexOf(" FAILED")
    if (verdict > 0 && line.includes("::")) {
      const id = nodeId(line.slice(0, verdict), context)
      if (id) verbose.push(id)
      continue
    }
    if (line.startsWith("=")) {
      const title = line.replace(/^=+ | =+$/g, "")
      section = title === "FAILURES" || title === "ERRORS"
    } else if (section && line.startsWith("_") && line.endsWith("_")) {
      const head = line.replace(/^_+ | _+$/g, "")
      if (head && !head.startsWith("_")) heads.push(head)
    }
  }
  return summary.length ? summary : verbose.length ? verbose : heads
}

/** `test_a.py::test_y[a - b] - assert …` → `test_a.py::test_y[a - b]`; undefined when it is not a node id. */
function nodeId(text: string, context: Context): string | undefined {
  let depth = 0
  let end = text.length
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]
    if (c === "[") depth += 1
    else if (c === "]") depth = Math.max(0, depth - 1)
    else if (depth === 0 && c === " " && text.startsWith(" - ", i)) {
      end = i
      break
    }
  }
  const id = text.slice(0, end).trim()
  const separator = id.indexOf("::")
  const file = separator >= 0 ? id.slice(0, separator) : id
  if (file === "" || file.includes(" ") || (separator < 0 && !file.endsWith(".py"))) return undefined
  return projectPath(file, context.directory) + id.slice(file.length)
}
