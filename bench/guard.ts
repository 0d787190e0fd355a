// Benchmark — the guard against weakened verification on a claim of done (issue 39): in a real git
// repository of 10,000 files, 200 of them changed (test files in JS and Python with tests edited,
// added and renamed, code files, a config), the diff from the start checkpoint to now as git prints
// it, then the guard's scan of it (src/evidence/guard.ts). Both are what a claim would add; the
// goal is ≤ 50 ms for the two. Run in a child node process on the built dist/.
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface GuardResult {
  runs: number
  files: number
  changed: number
  diffBytes: number
  findings: number
  gitDiffMs: number
  scanMs: number
  totalMs: number
}

const FILES = 10_000
const CHANGED = 200

const jsTest = (i: number, edited: boolean) =>
  [
    `import { describe, expect, test } from "vitest"`,
    `import { add${i} } from "../src/m${i}.js"`,
    ``,
    `describe("module ${i}", () => {`,
    ...Array.from({ length: 12 }, (_, t) => [
      `  test("case ${t} of ${i}", () => {`,
      `    const input = ${edited && t % 4 === 0 ? `[${t}, ${t + 1}]` : `${t}`}`,
      `    expect(add${i}(input)).toBe(${t * 2})`,
      `  })`,
      ``,
    ]).flat(),
    ...(edited ? [`  test("added case of ${i}", () => {`, `    expect(add${i}(0)).toBe(0)`, `  })`] : []),
    `})`,
    ``,
  ].join("\n")

const pyTest = (i: number, edited: boolean) =>
  [
    `from m${i} import add`,
    ``,
    ...Array.from({ length: 12 }, (_, t) => [
      ``,
      `def test_case_${t}_of_${i}():`,
      `    value = ${edited && t % 4 === 0 ? `int("${t}")` : `${t}`}`,
      `    assert add(value) == ${t * 2}`,
      ``,
    ]).flat(),
    ...(edited ? [``, `def test_added_${i}():`, `    assert add(0) == 0`, ``] : []),
  ].join("\n")

const code = (i: number, edited: boolean) =>
  `export function add${i}(x) {\n  // module ${i}\n  return ${edited ? "Number(x) * 2" : "x * 2"}\n}\n`

/** path → text of the project at the start (edited: false) or now. */
export function project(edited: boolean): Map<string, string> {
  const files = new Map<string, string>()
  for (let i = 0; i < FILES; i += 1) {
    const changed = edited && i % (FILES / CHANGED) === 0
    const kind = i % 3
    if (kind === 0) files.set(`test/t${i}.test.js`, jsTest(i, changed))
    else if (kind === 1) files.set(`tests/test_m${i}.py`, pyTest(i, changed))
    else files.set(`src/m${i}.js`, code(i, changed))
  }
  return files
}

export function git(cwd: string, args: string[]): string {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }
  return execFileSync("git", args, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env })
}

/** A new repository in `dir` with an identity, and no gc or maintenance in the background (it would still
 * write into .git while the folder is removed). */
export function initRepository(dir: string): void {
  git(dir, ["init", "-q", "-b", "main"])
  git(dir, ["config", "user.email", "bench@example.com"])
  git(dir, ["config", "user.name", "bench"])
  git(dir, ["config", "gc.auto", "0"])
  git(dir, ["config", "maintenance.auto", "false"])
}

export function commitAll(dir: string, files: Map<string, string>, message: string): string {
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  git(dir, ["add", "-A"])
  git(dir, ["commit", "-q", "-m", message])
  return git(dir, ["rev-parse", "HEAD"]).trim()
}

/** `npm test`, which ran more tests now than at its first run (tests were added). */
const CHECK = {
  name: "unit",
  command: "npm test",
  first: { passed: 40, failed: 0, skipped: 0 },
  now: { passed: 44, failed: 0, skipped: 0 },
}

async function measure(): Promise<GuardResult> {
  const { guardFindings } = await loadDist<typeof import("../src/evidence/guard.js")>("evidence/guard.js")
  const dir = mkdtempSync(join(tmpdir(), "ralph-bench-guard-"))
  try {
    initRepository(dir)
    const before = project(false)
    const start = commitAll(dir, before, "start checkpoint")
    const changed = [...project(true)].filter(([path, text]) => before.get(path) !== text)
    const current = commitAll(dir, new Map(changed), "checkpoint now")
    const runs = QUICK ? 5 : 20
    const gitTimes: number[] = []
    const scanTimes: number[] = []
    let diff = ""
    let findings = 0
    for (let i = 0; i < runs + 2; i += 1) {
      const t0 = process.hrtime.bigint()
      diff = git(dir, ["diff", "--no-color", "--no-ext-diff", "-M", start, current])
      const t1 = process.hrtime.bigint()
      findings = guardFindings({ diff, checks: [CHECK] }).length
      const t2 = process.hrtime.bigint()
      if (i >= 2) {
        gitTimes.push(Number(t1 - t0) / 1e6)
        scanTimes.push(Number(t2 - t1) / 1e6)
      }
    }
    const gitDiffMs = median(gitTimes)
    const scanMs = median(scanTimes)
    const times = { gitDiffMs: round(gitDiffMs, 2), scanMs: round(scanMs, 2), totalMs: round(gitDiffMs + scanMs, 2) }
    return { runs, files: FILES, changed: changed.length, diffBytes: diff.length, findings, ...times }
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 })
  }
}

export function runGuardBench(): Promise<GuardResult> {
  return runChild<GuardResult>(fileURLToPath(import.meta.url), [], {}, 10 * 60_000)
}

runAsChild(import.meta.url, "guard", measure)
