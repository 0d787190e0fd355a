// The test counts a check's evidence carries, read from what the real runners printed
// (test/fixtures/runners/, made by scripts/make-runner-fixtures.mjs): all pass, two failing, a test
// skipped alone and beside a failure, a test removed — and null for the tools that count no tests
// (plain `go test` among them: it names its failures alone).
import { describe, expect, it } from "vitest"
import { testCounts, testsRun, type TestCounts } from "../../src/checks/test-counts.js"
import { outputOf, runsOf, TOOLS } from "./runner-fixtures.js"

const c = (passed: number, failed: number, skipped: number): TestCounts => ({ passed, failed, skipped })

// What each runner printed for the scenarios of its fixture project (4 tests; A and C failing in
// `fixed-1`, where pytest's parametrized C is one more case; S skips one test, R removes one).
const JS = {
  "pass-1": c(4, 0, 0),
  "fixed-1": c(2, 2, 0),
  "skipped-1": c(3, 0, 1),
  "skipped-2": c(2, 1, 1),
  "removed-1": c(3, 0, 0),
}
const PYTEST = { ...JS, "fixed-1": c(3, 2, 0), "broken-1": c(0, 1, 0) }
const EXPECTED: Record<string, Record<string, TestCounts | null>> = {
  vitest: { ...JS, "broken-1": c(3, 0, 0) },
  "vitest-color": { ...JS, "broken-1": c(3, 0, 0) },
  jest: { ...JS, "broken-1": c(3, 0, 0) },
  mocha: { ...JS, "broken-1": null },
  "node-test-spec": { ...JS, "broken-1": c(3, 1, 0) },
  "node-test-tap": { ...JS, "broken-1": c(3, 1, 0) },
  pytest: PYTEST,
  "pytest-q": PYTEST,
  "pytest-v": PYTEST,
  "pytest-rN": PYTEST,
  "pytest-color": PYTEST,
  // A test with subtests counts through them; the package that did not build printed no test.
  "go-json": { ...JS, "broken-1": c(1, 0, 0) },
  "go-v": { ...JS, "broken-1": c(1, 0, 0) },
  // Cargo stops at the first test binary that fails: the integration test's count is missing then.
  cargo: { ...JS, "fixed-1": c(1, 2, 0), "skipped-2": c(1, 1, 1), "broken-1": null },
}

describe.each(Object.keys(EXPECTED))("%s: the tests its own summary counts", (tool) => {
  it.each(Object.keys(EXPECTED[tool]!))("%s", (file) => {
    expect(testCounts(outputOf(tool, `${file}.txt`))).toEqual(EXPECTED[tool]![file])
  })
})

describe("tools that count no tests", () => {
  const others = Object.keys(TOOLS).filter((tool) => !(tool in EXPECTED))
  it.each(others)("%s: null in every run (a linter, a type checker, plain `go test`)", (tool) => {
    expect(others).toContain("go")
    for (const run of runsOf(tool)) expect(testCounts(outputOf(tool, run.file)), run.file).toBeNull()
  })
})

describe("reading the counts", () => {
  it("a skipped or removed test lowers the tests that ran; a skipped one is counted as skipped", () => {
    const pass = testCounts(outputOf("vitest", "pass-1.txt"))!
    expect(testsRun(pass)).toBe(4)
    expect(testsRun(testCounts(outputOf("vitest", "skipped-1.txt"))!)).toBe(3)
    expect(testsRun(testCounts(outputOf("pytest", "removed-1.txt"))!)).toBe(3)
  })

  it("a check that runs two runners sums them (`npm test && pytest`)", () => {
    const both = `${outputOf("jest", "skipped-2.txt")}\n${outputOf("pytest-q", "fixed-1.txt")}`
    expect(testCounts(both)).toEqual(c(5, 3, 1))
  })

  it("pytest's no tests, a long run's duration, warnings and deselected tests; vitest's no tests", () => {
    expect(testCounts("===== no tests ran in 0.01s =====\n")).toEqual(c(0, 0, 0))
    expect(testCounts("== 3 passed, 2 warnings, 1 deselected, 1 xfailed in 61.20s (0:01:01) ==\n")).toEqual(c(3, 0, 1))
    expect(testCounts(" Test Files  no tests\n      Tests  no tests\n")).toEqual(c(0, 0, 0))
  })

  it("lines that only look like a summary count nothing", () => {
    expect(testCounts("Done in 0.52s\n1 file changed in 2s\nTests: none\n# pass the salt\n")).toBeNull()
    expect(testCounts("")).toBeNull()
  })

  it("megabytes of summary-like text end at once (no pattern backtracks over them)", () => {
    const hostile = [
      `${"= ".repeat(1_000_000)}in 1s`,
      `Tests  ${"1 passed | ".repeat(300_000)}`,
      `${"1 passed, ".repeat(300_000)}x in 1.0s`,
      `test result: ok. ${"1 passed; ".repeat(300_000)}`,
      `{"Test":"${"x".repeat(3_000_000)}`,
      "9".repeat(3_000_000),
      // many lines just under the length a summary line may have
      `${"1 passed, ".repeat(400)}x in 1.0s\n`.repeat(2_000),
      `Tests  ${"1 passed | ".repeat(370)}(1)\n`.repeat(2_000),
    ]
    for (const text of hostile) expect(testCounts(`${text}\n 2 passing (3ms)\n`)).toEqual(c(2, 0, 0))
  })
})
