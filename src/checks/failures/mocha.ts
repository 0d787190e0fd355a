// Mocha (spec reporter, the default): after `  2 failing`, each failure is numbered and its titles
// follow one per line, the last ending in `:` — `  1) calc` / `       multiply` / `         multiplies:`.
// Mocha names no file there: the identity is the title path.
import { LONG_LINE } from "./text.js"

const MAX_TITLES = 12

export function mochaFailures(lines: readonly string[]): string[] {
  const found: string[] = []
  let failing = false
  let titles: string[] | undefined
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    if (/^ {2}\d+ failing$/.test(line)) {
      failing = true
      continue
    }
    if (!failing) continue
    const numbered = /^ {2}\d+\) (.*)$/.exec(line)
    if (numbered) titles = []
    const title = numbered ? numbered[1]! : titles ? line.trim() : undefined
    if (titles === undefined || title === undefined) continue
    if (title === "" || titles.length >= MAX_TITLES) {
      titles = undefined
      continue
    }
    if (title.endsWith(":")) {
      found.push([...titles, title.slice(0, -1)].join(" > "))
      titles = undefined
    } else titles.push(title)
  }
  return found
}
