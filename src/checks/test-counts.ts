// How many tests a check ran, read from the runner's own summary: vitest, jest, mocha, node --test
// (spec and TAP), pytest (any verbosity, colour or not), go test -json and -v, and cargo test. Null
// where no runner printed its counts (a linter, a type checker, plain `go test`, which names no
// passed or skipped test). A check that runs several runners sums them. Pure; each line is read once, with
// startsWith/indexOf and splits, never a pattern that backtracks.
import { z } from "zod"
import { LONG_LINE, stripAnsi } from "./failures/text.js"

export const testCountsSchema = z.object({ passed: z.int().min(0), failed: z.int().min(0), skipped: z.int().min(0) })
export type TestCounts = z.infer<typeof testCountsSchema>

/** A runner's summary, read line by line; `counts` once the whole output was seen (null: not this runner's output). */
interface Reader {
  line(line: string, trimmed: string): void
  counts(): TestCounts | null
}

/** A count of at most 9 digits (a longer run is no count). */
function count(text: string): number | undefined {
  if (text.length === 0 || text.length > 9) return undefined
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) return undefined
  }
  return Number(text)
}

// What each runner's words add to: a skipped, pending, todo, ignored or xfailed test did not run
// as a test; an error (pytest), cancelled (node) or xpassed under strict is a failure.
const WORDS: Record<string, keyof TestCounts> = {
  passed: "passed",
  passing: "passed",
  pass: "passed",
  xpassed: "passed",
  failed: "failed",
  failing: "failed",
  fail: "failed",
  error: "failed",
  errors: "failed",
  cancelled: "failed",
  skipped: "skipped",
  skip: "skipped",
  pending: "skipped",
  todo: "skipped",
  ignored: "skipped",
  xfailed: "skipped",
}

/** `3 passed`, `1 skipped`: the parts of a summary; undefined when a part is no `<count> <word>` (nor ignored). */
function tally(parts: readonly string[], ignore: ReadonlySet<string>): TestCounts | undefined {
  const counts = { passed: 0, failed: 0, skipped: 0 }
  let seen = 0
  for (const part of parts) {
    const text = part.trim()
    const space = text.indexOf(" ")
    const n = count(text.slice(0, space))
    const word = text.slice(space + 1)
    if (space < 0 || n === undefined) return undefined
    if (ignore.has(word)) continue
    const field = WORDS[word]
    if (!field) return undefined
    counts[field] += n
    seen += 1
  }
  return seen > 0 ? counts : undefined
}

const NONE = new Set<string>()

const sum = (a: TestCounts, b: TestCounts): TestCounts => ({
  passed: a.passed + b.passed,
  failed: a.failed + b.failed,
  skipped: a.skipped + b.skipped,
})

/** Vitest: `      Tests  1 failed | 2 passed | 1 skipped (4)`; `Tests  no tests` when none ran. */
function vitest(): Reader {
  let found: TestCounts | null = null
  return {
    line(_line, trimmed) {
      if (!trimmed.startsWith("Tests  ")) return
      const rest = trimmed.slice("Tests  ".length).trim()
      if (rest === "no tests") found = { passed: 0, failed: 0, skipped: 0 }
      const total = rest.lastIndexOf(" (")
      const counts = tally((total > 0 ? rest.slice(0, total) : rest).split(" | "), NONE)
      if (counts) found = counts
    },
    counts: () => found,
  }
}

/** Jest: `Tests:       1 failed, 1 skipped, 2 passed, 4 total`. */
function jest(): Reader {
  let found: TestCounts | null = null
  return {
    line(_line, trimmed) {
      if (!trimmed.startsWith("Tests:")) return
      found = tally(trimmed.slice("Tests:".length).split(", "), new Set(["total"])) ?? found
    },
    counts: () => found,
  }
}

/** Mocha: `  3 passing (8ms)`, `  1 pending`, `  1 failing`, each on its own line. */
function mocha(): Reader {
  const found = { passed: -1, failed: 0, skipped: 0 }
  return {
    line(_line, trimmed) {
      const space = trimmed.indexOf(" ")
      const n = count(trimmed.slice(0, space))
      if (space < 0 || n === undefined) return
      const word = trimmed.slice(space + 1)
      if (word.startsWith("passing (") && word.endsWith(")")) found.passed = n
      else if (word === "pending") found.skipped = n
      else if (word === "failing") found.failed = n
    },
    counts: () => (found.passed < 0 ? null : found),
  }
}

/** node --test: `ℹ pass 3` (spec) or `# pass 3` (TAP), then fail, cancelled, skipped, todo. */
function nodeTest(): Reader {
  const found = { passed: -1, failed: -1, skipped: 0 }
  let cancelled = 0
  return {
    line(line) {
      if (!line.startsWith("ℹ ") && !line.startsWith("# ")) return
      const rest = line.slice(2)
      const space = rest.indexOf(" ")
      const n = count(rest.slice(space + 1))
      if (space < 0 || n === undefined) return
      const word = rest.slice(0, space)
      if (word === "pass") found.passed = n
      else if (word === "fail") found.failed = n
      else if (word === "cancelled") cancelled = n
      else if (word === "skipped") found.skipped = n
      else if (word === "todo") found.skipped += n
    },
    counts: () => (found.passed < 0 || found.failed < 0 ? null : { ...found, failed: found.failed + cancelled }),
  }
}

/** pytest: `=== 1 failed, 2 passed, 1 skipped in 0.07s ===` (`-q`: without the `=`), `no tests ran in 0.01s`. */
function pytest(): Reader {
  let found: TestCounts | null = null
  const ignore = new Set(["warning", "warnings", "deselected", "rerun"])
  return {
    line(_line, trimmed) {
      let start = 0
      let end = trimmed.length
      while (start < end && (trimmed[start] === "=" || trimmed[start] === " ")) start += 1
      while (end > start && (trimmed[end - 1] === "=" || trimmed[end - 1] === " ")) end -= 1
      const summary = trimmed.slice(start, end)
      const at = summary.lastIndexOf(" in ")
      if (at < 0 || !isDuration(summary.slice(at + " in ".length))) return
      const what = summary.slice(0, at)
      if (what === "no tests ran") found = { passed: 0, failed: 0, skipped: 0 }
      else found = tally(what.split(", "), ignore) ?? found
    },
    counts: () => found,
  }
}

/** `0.07s`, or `61.20s (0:01:01)` for a long run. */
function isDuration(text: string): boolean {
  const seconds = text.indexOf("s")
  if (seconds <= 0 || (seconds !== text.length - 1 && !text.startsWith(" (", seconds + 1))) return false
  const number = text.slice(0, seconds)
  const dot = number.indexOf(".")
  const whole = dot < 0 ? number : number.slice(0, dot)
  return count(whole) !== undefined && (dot < 0 || count(number.slice(dot + 1)) !== undefined)
}

/** cargo test: `test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; …`, one per test binary. */
function cargo(): Reader {
  let found: TestCounts | null = null
  const ignore = new Set(["measured", "filtered out"])
  return {
    line(_line, trimmed) {
      if (!trimmed.startsWith("test result: ")) return
      const dot = trimmed.indexOf(". ")
      if (dot < 0) return
      const parts = trimmed.slice(dot + 2).split("; ")
      const counts = tally(
        parts.filter((p) => !p.startsWith("finished in ")),
        ignore,
      )
      if (!counts) return
      found = found ? sum(found, counts) : counts
    },
    counts: () => found,
  }
}

const GO_ACTIONS: [string, keyof TestCounts][] = [
  ['"Action":"pass"', "passed"],
  ['"Action":"fail"', "failed"],
  ['"Action":"skip"', "skipped"],
]

/** go test -json: each test's last pass, fail or skip event; a test with subtests counts through them (its leaves). */
function goJson(): Reader {
  const tests = new Map<string, keyof TestCounts>()
  return {
    line(line) {
      if (!line.startsWith("{") || !line.includes('"Test"')) return
      const action = GO_ACTIONS.find(([text]) => line.includes(text))?.[1]
      if (!action) return
      try {
        const event = JSON.parse(line) as { Package?: unknown; Test?: unknown }
        if (typeof event.Test === "string") tests.set(`${String(event.Package)} ${event.Test}`, action)
      } catch {
        // not go's event line
      }
    },
    counts() {
      if (tests.size === 0) return null
      const counts = { passed: 0, failed: 0, skipped: 0 }
      const names = [...tests.keys()].sort()
      names.forEach((name, i) => {
        // Sorted, a test's subtests (`TestX/case`) come right after it: a parent is no test of its own.
        if (names[i + 1]?.startsWith(`${name}/`)) return
        counts[tests.get(name)!] += 1
      })
      return counts
    },
  }
}

const GO_RESULTS: Record<string, keyof TestCounts> = {
  "--- PASS: ": "passed",
  "--- FAIL: ": "failed",
  "--- SKIP: ": "skipped",
}

/**
 * go test -v: `--- PASS: TestX (0.00s)` for each test, indented for a subtest; a test with subtests
 * counts through them. Only with its `=== RUN` lines: plain `go test` prints its failures alone.
 */
function goVerbose(): Reader {
  const results: [name: string, result: keyof TestCounts][] = []
  let verbose = false
  return {
    line(_line, trimmed) {
      if (trimmed.startsWith("=== RUN ")) verbose = true
      const result = GO_RESULTS[trimmed.slice(0, "--- PASS: ".length)]
      if (!result) return
      const rest = trimmed.slice("--- PASS: ".length)
      const end = rest.indexOf(" (")
      results.push([end < 0 ? rest : rest.slice(0, end), result])
    },
    counts() {
      if (!verbose || results.length === 0) return null
      const parents = new Set<string>()
      for (const [name] of results) {
        for (let slash = name.indexOf("/"); slash > 0; slash = name.indexOf("/", slash + 1)) {
          parents.add(name.slice(0, slash))
        }
      }
      const counts = { passed: 0, failed: 0, skipped: 0 }
      for (const [name, result] of results) if (!parents.has(name)) counts[result] += 1
      return counts
    },
  }
}

const READERS = [vitest, jest, mocha, nodeTest, pytest, cargo, goJson, goVerbose]

/** The tests a check's output says ran, summed over the runners in it; null when no runner's summary is in it. */
export function testCounts(output: string): TestCounts | null {
  const readers = READERS.map((make) => make())
  for (const line of stripAnsi(output).split(/\r\n|\r|\n/)) {
    if (line.length > LONG_LINE) continue
    const trimmed = line.trim()
    for (const reader of readers) reader.line(line, trimmed)
  }
  let total: TestCounts | null = null
  for (const reader of readers) {
    const counts = reader.counts()
    if (counts) total = total ? sum(total, counts) : { ...counts }
  }
  return total
}

/** The tests that ran (passed or failed): a skipped or removed test lowers it. */
export const testsRun = (counts: TestCounts): number => counts.passed + counts.failed
