// TypeScript's tsc: `src/a.ts(3,7): error TS2322: Type 'string' is not …` (plain, what a check's pipe
// gets), `src/a.ts:3:7 - error TS2322: …` (--pretty) and `error TS5083: …` (no file). A message's
// indented continuation lines and the pretty code frame are left out.
import { LONG_LINE, finding, type Context } from "./text.js"

const PLAIN = /^(.+)\(\d+,\d+\): (?:error|warning) (TS\d+): (.*)$/
const PRETTY = /^(.+):\d+:\d+ - (?:error|warning) (TS\d+): (.*)$/
const BARE = /^(?:error|warning) (TS\d+): (.*)$/

export function tscFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  for (const line of lines) {
    if (line.length > LONG_LINE || line.startsWith(" ")) continue
    const match = PLAIN.exec(line) ?? PRETTY.exec(line)
    if (match) found.push(finding(match[1], match[2]!, match[3]!, context))
    else {
      const bare = BARE.exec(line)
      if (bare) found.push(finding(undefined, bare[1]!, bare[2]!, context))
    }
  }
  return found
}
