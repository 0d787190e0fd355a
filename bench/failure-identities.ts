// Benchmark — a failing check's output read into failure identities (issue 30): what runs after
// every check run that failed, on the 16 KB a check keeps of its output. The outputs are the real
// tools' (test/fixtures/runners/), repeated with their test and file names varied until they fill
// 16 KB, then cut at the start as a check cuts them; one more shape is an output no parser knows
// (read whole), and one hostile (long lines of what the line patterns look for). 1 MB and 4 MB of
// the slowest shape show it stays linear. Run in a child node
// process on the built dist/.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { packageDir } from "../test/harness/harness.js"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface FailureIdentitiesCase {
  name: string
  bytes: number
  identities: number
  medianMs: number
}

export interface FailureIdentitiesResult {
  runs: number
  cases: FailureIdentitiesCase[]
  slowest16KbMs: number
  /** The slowest 16 KB shape at 4 MB over 1 MB (4 = linear). */
  fourToOneMbRatio: number
}

const KB16 = 16 * 1024
const MB = 1024 * 1024

// A fixture file and the word varied in each repetition, so repetitions are other failures.
const SHAPES: Array<[name: string, file: string, word: RegExp]> = [
  ["pytest", "pytest/fixed-1.txt", /small/g],
  ["vitest (colours)", "vitest/fixed-1.txt", /small/g],
  ["jest", "jest/fixed-1.txt", /small/g],
  ["node --test TAP", "node-test-tap/fixed-1.txt", /small/g],
  ["mocha", "mocha/fixed-1.txt", /small/g],
  ["go test", "go/fixed-1.txt", /Small/g],
  ["cargo test", "cargo/fixed-1.txt", /small/g],
  ["tsc", "tsc/fixed-1.txt", /a\.ts/g],
  ["ESLint stylish", "eslint-stylish/fixed-1.txt", /unused/g],
  ["ESLint JSON", "eslint-json/fixed-1.txt", /unused/g],
  ["ruff", "ruff/fixed-1.txt", /os/g],
  ["mypy", "mypy/fixed-1.txt", /add_typed/g],
  ["unrecognised (read whole)", "mocha/broken-1.txt", /missing/g],
]

/** Long lines made of what the line patterns look for (`path:1:1: ` again and again, no end they accept). */
const hostile = (bytes: number) => `${"src/a.js:1:1: ".repeat(290)}\n`.repeat(Math.ceil(bytes / 4061)).slice(-bytes)

/** `bytes` of the fixture's output repeated, a counter in the varied word, cut at the start as a check keeps its end. */
function filled(file: string, word: RegExp, bytes: number): string {
  const text = readFileSync(join(packageDir(), "test", "fixtures", "runners", file), "utf8")
  const parts: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i += 1) {
    const part = text.replace(word, (w) => `${w}${i}`)
    parts.push(part)
    size += part.length
  }
  return parts.join("").slice(-bytes)
}

async function measure(): Promise<FailureIdentitiesResult> {
  const { failureIdentities } =
    await loadDist<typeof import("../src/checks/failures/index.js")>("loop/failures/index.js")
  const runs = QUICK ? 50 : 300
  const time = (output: string, rounds: number) => {
    const times: number[] = []
    let identities = 0
    for (let i = 0; i < rounds + 5; i += 1) {
      const started = process.hrtime.bigint()
      identities = failureIdentities(output).length
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (i >= 5) times.push(ms) // the first ones warm the JIT up
    }
    return { identities, medianMs: median(times) }
  }
  const makers: Array<[string, (bytes: number) => string]> = [
    ...SHAPES.map(([name, file, word]): [string, (bytes: number) => string] => [
      name,
      (bytes) => filled(file, word, bytes),
    ]),
    ["hostile long lines", hostile],
  ]
  const cases: FailureIdentitiesCase[] = makers.map(([name, make]) => ({
    name: `16 KB ${name}`,
    bytes: KB16,
    ...time(make(KB16), runs),
  }))
  const slowest = cases.reduce((a, b) => (b.medianMs > a.medianMs ? b : a))
  const [shape, make] = makers[cases.indexOf(slowest)]!
  const big = [MB, 4 * MB].map((bytes) => ({
    name: `${bytes / MB} MB ${shape}`,
    bytes,
    ...time(make(bytes), QUICK ? 3 : 9),
  }))
  return {
    runs,
    cases: [...cases, ...big].map((c) => ({ ...c, medianMs: round(c.medianMs, 3) })),
    slowest16KbMs: round(slowest.medianMs, 3),
    fourToOneMbRatio: round(big[1]!.medianMs / big[0]!.medianMs, 2),
  }
}

export function runFailureIdentitiesBench(): Promise<FailureIdentitiesResult> {
  return runChild<FailureIdentitiesResult>(fileURLToPath(import.meta.url), [], {}, 5 * 60_000)
}

runAsChild(import.meta.url, "failure-identities", measure)
