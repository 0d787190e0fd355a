import { describe, expect, it } from "vitest"
import { buildHandoff, HANDOFF_BUDGET, type HandoffFacts } from "../../src/loop/handoff.js"
import { recurringFailures } from "../../src/loop/criteria.js"
import { snapshotOf, type CheckResult } from "../../src/loop/diagnostics.js"

const facts = (over: Partial<HandoffFacts> = {}): HandoffFacts => ({
  goal: "make the parser fast",
  iteration: 3,
  maxIterations: 6,
  files: ["src/parser.ts"],
  failingChecks: ["test (test): failed — 2 failed"],
  openTodos: ["benchmark the tokenizer"],
  tried: [],
  recurring: [],
  ...over,
})

describe("handoff", () => {
  it("adds the facts the model's summary leaves out", () => {
    const text = buildHandoff("Rewrote the loop.", facts())
    for (const fact of ["make the parser fast", "Iteration 3 of 6", "src/parser.ts", "2 failed", "benchmark the tokenizer"]) expect(text).toContain(fact)
  })
  it("does not repeat an open todo the summary already names", () => {
    expect(buildHandoff("Still open: benchmark the tokenizer.", facts())).not.toContain("- Open todos")
  })
  it("stays within the budget however long the summary and the lists grow", () => {
    const long = buildHandoff("x".repeat(50_000), facts({ files: Array.from({ length: 500 }, (_, i) => `src/file${i}.ts`) }))
    expect(long.length).toBeLessThanOrEqual(HANDOFF_BUDGET + 100)
    expect(long).toContain("… and 488 more")
    expect(long).toContain("summary cut to fit")
  })
})

describe("circular fixes", () => {
  const run = (failing: string[]) =>
    snapshotOf(1, 0, ["A", "B"].map((name): CheckResult => ({
      name, kind: "test", command: name, status: failing.includes(name) ? "failed" : "passed", exitCode: failing.includes(name) ? 1 : 0,
      durationMs: 1, output: `error in ${name}`, errors: 0, warnings: 0, info: 0, security: 0, testsRun: 1, testsFailed: failing.includes(name) ? 1 : 0, testsPassed: 0, files: [],
    })))
  it("names a failure that comes back after being fixed (A → B → A)", () => {
    expect(recurringFailures([run(["A"]), run(["B"]), run(["A"])])).toEqual(["A: error in A"])
    expect(recurringFailures([run(["A"]), run(["A"]), run(["B"])])).toEqual([])
  })
})
