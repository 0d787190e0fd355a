// node --test, both reporters. TAP: `# Subtest: name` lines nest by four spaces, `not ok N - name`
// ends a failed one, and its YAML block names the file (`location: '/abs/test/a.test.js:6:3'`) and
// why (`failureType: 'subtestsFailed'`: a suite failing for its tests, not a failure of its own).
// Spec: the closing `✖ failing tests:` list, `test at test/a.test.js:6:3` then `✖ name (1.2ms)`;
// without that list (older node), the tree's `✖ name (1.2ms)` leaves under their `▶ suite` lines.
import { LONG_LINE, projectPath, withoutPosition, type Context } from "./text.js"

export function nodeTestFailures(lines: readonly string[], context: Context): string[] {
  return [...tapFailures(lines, context), ...specFailures(lines, context)]
}

const indentOf = (line: string) => line.length - line.trimStart().length

function tapFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  const names: string[] = []
  let failed: { path: string[]; indent: number; file?: string; suite: boolean } | undefined
  const settle = () => {
    if (failed && !failed.suite) found.push(identity(failed.file, failed.path))
    failed = undefined
  }
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    const indent = indentOf(line)
    const text = line.trimStart()
    if (failed && indent > failed.indent) {
      if (text.startsWith("location: "))
        failed.file = projectPath(withoutPosition(unquote(text.slice("location: ".length))), context.directory)
      else if (text.startsWith("failureType: "))
        failed.suite = unquote(text.slice("failureType: ".length)) === "subtestsFailed"
      continue
    }
    if (failed && indent <= failed.indent && text !== "") settle()
    const depth = Math.floor(indent / 4)
    if (text.startsWith("# Subtest: ")) {
      names.length = depth
      names[depth] = tapName(text.slice("# Subtest: ".length), context)
    } else if (text.startsWith("not ok ")) {
      const dash = text.indexOf(" - ")
      const name = dash >= 0 ? text.slice(dash + 3) : ""
      if (/ # (?:TODO|SKIP)\b/i.test(name)) continue
      // A cut start may have lost the outer `# Subtest:` lines: the path is what is left of it.
      failed = {
        path: [...names.slice(0, depth).filter((n) => n !== undefined), tapName(name, context)],
        indent,
        suite: false,
      }
    }
  }
  settle()
  return found
}

/**
 * `file > suite > test`; the file named again as a test (older node's subtest per file, a file that did not load) only
 * once.
 */
function identity(file: string | undefined, path: readonly string[]): string {
  const names = path.filter((name, i) => name !== file || (i > 0 && i < path.length - 1))
  return [...(file !== undefined ? [file] : []), ...names].join(" > ")
}

/** A TAP name unescaped; a file's path (a file that failed to load, or older node's subtest per file) made relative. */
function tapName(name: string, context: Context): string {
  const plain = name.replace(/\\#/g, "#").replace(/\\\\/g, "\\").trim()
  return plain.startsWith("/") || plain.startsWith("file://") || /^[A-Za-z]:[\\/]/.test(plain)
    ? projectPath(plain, context.directory)
    : plain
}

const unquote = (text: string) => text.trim().replace(/^'(.*)'$/, "$1")

const DURATION = / \(\d+(?:\.\d+)?m?s\)$/

function specFailures(lines: readonly string[], context: Context): string[] {
  const listed: string[] = []
  const tree: string[] = []
  const suites: Array<{ name: string; indent: number }> = []
  let list = false
  let at: string | undefined
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    const text = line.trimStart()
    if (text.startsWith("✖ failing tests:")) {
      list = true
      continue
    }
    if (list) {
      if (line.startsWith("test at "))
        at = projectPath(withoutPosition(line.slice("test at ".length).trim()), context.directory)
      else if (line.startsWith("✖ ") && at) {
        listed.push(identity(at, [tapName(line.slice(2).replace(DURATION, ""), context)]))
        at = undefined
      }
      continue
    }
    const indent = indentOf(line)
    if (text.startsWith("▶ ")) {
      while (suites.length && suites.at(-1)!.indent >= indent) suites.pop()
      suites.push({ name: text.slice(2).replace(DURATION, ""), indent })
    } else if (text.startsWith("✖ ") && DURATION.test(text)) {
      const name = text.slice(2).replace(DURATION, "")
      while (suites.length && suites.at(-1)!.indent > indent) suites.pop()
      const closes = suites.at(-1)
      // `✖ suite (3ms)` at its `▶ suite` line's indent closes the suite: not a test of its own.
      if (closes && closes.indent === indent && closes.name === name) suites.pop()
      else tree.push([...suites.map((s) => s.name), name].join(" > "))
    }
  }
  return listed.length ? listed : tree
}
