// cargo test (libtest): `test tests::adds ... FAILED`, `---- tests::adds stdout ----` and the closing
// `failures:` list name the test's path; `Running unittests src/lib.rs (target/…/calc-0a1b…)` or
// `Running tests/format.rs (…)` names the target before them. A doc test's `(line 5)` is dropped.
// Compile errors: see located.ts.
import { LONG_LINE, projectPath, type Context } from "./text.js"

export function cargoFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  let target: string | undefined
  let list = false
  const add = (name: string) => {
    const path = (name.includes(" - ") ? name.replace(/ \(line \d+\)$/, "") : name).trim()
    if (path) found.push(target ? `${target} > ${path}` : path)
  }
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    const text = line.trim()
    if (list && text !== "" && !line.startsWith("    ")) list = false
    if (list) {
      if (text !== "") add(text)
    } else if (text.startsWith("Running ") && text.endsWith(")")) {
      const open = text.lastIndexOf(" (")
      const source = text.slice("Running ".length, open > 0 ? open : undefined).replace(/^unittests /, "")
      target = projectPath(source, context.directory)
      list = false
    } else if (text.startsWith("Doc-tests ")) {
      target = undefined // a doc test's name holds its file
    } else if (text.startsWith("test ") && text.endsWith(" ... FAILED")) {
      add(text.slice("test ".length, -" ... FAILED".length))
    } else if (text.startsWith("---- ") && text.endsWith(" stdout ----")) {
      add(text.slice("---- ".length, -" stdout ----".length))
    } else if (line === "failures:") {
      list = true
    }
  }
  return found
}
