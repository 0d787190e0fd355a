// Jest: `FAIL test/a.test.js` heads a file (` FAIL ` when coloured, `(5.2 s)` after a slow one),
// and each failure under it is `  ● suite › test` (`● Test suite failed to run` for a file that did
// not load). The summary of all failing tests repeats them: the set is the same.
import { LONG_LINE, projectPath, type Context } from "./text.js"

export function jestFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  let file: string | undefined
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    const head = line.trimStart()
    if (head.startsWith("FAIL ") || head.startsWith("PASS ")) {
      const rest = head.slice(5).trim()
      // Vitest's FAIL lines name the test after ` > `, jest's only the file.
      file =
        head.startsWith("FAIL ") && !rest.includes(" > ") && !rest.includes(" [ ") && rest !== ""
          ? projectPath(rest.replace(/ \(\d+(?:\.\d+)? m?s\)$/, ""), context.directory)
          : undefined
    } else if (file && line.startsWith("  ● ")) {
      found.push([file, ...line.slice(4).trim().split(" › ")].join(" > "))
    }
  }
  return found
}
