// Vitest (every reporter prints them): ` FAIL  test/a.test.ts > suite > test` for each failed test,
// ` FAIL  test/b.test.ts [ test/b.test.ts ]` for a file that failed to load; a workspace project's
// `|name| ` before the file. The `❯ file (3 tests | 1 failed) 17ms` lines carry timings: not used.
import { LONG_LINE, projectPath, type Context } from "./text.js"

export function vitestFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  for (const line of lines) {
    if (line.length > LONG_LINE || !line.startsWith(" FAIL ")) continue
    let rest = line.slice(" FAIL ".length).trim()
    if (rest.startsWith("|")) rest = rest.slice(rest.indexOf("| ", 1) + 2)
    const parts = rest.split(" > ")
    const file = parts[0]!
    const suiteError = file.indexOf(" [ ")
    if (parts.length === 1 && suiteError < 0) continue // jest's ` FAIL  file` head, not vitest's
    const path = projectPath(suiteError >= 0 ? file.slice(0, suiteError) : file, context.directory)
    found.push([path, ...parts.slice(1).map((p) => p.trim())].join(" > "))
  }
  return found
}
