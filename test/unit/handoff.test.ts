import { describe, expect, it } from "vitest"
import { buildHandoff, HANDOFF_BUDGET, latestCheckRun, type HandoffFacts } from "../../src/loop/handoff.js"
import { recurringFailures } from "../../src/loop/criteria.js"
import { snapshotOf, type CheckResult } from "../../src/checks/diagnostics.js"

const facts = (over: Partial<HandoffFacts> = {}): HandoffFacts => ({
  goal: "make the parser fast",
  iteration: 3,
  maxIterations: 6,
  files: ["src/parser.ts"],
  failingChecks: ["test (test): failed — 2 failed"],
  openTodos: ["benchmark the tokenizer"],
  tried: [],
  recurring: [],
  gotchas: [],
  ...over,
})

describe("handoff", () => {
  it("adds the facts the model's summary leaves out", () => {
    const text = buildHandoff("Rewrote the loop.", facts())
    for (const fact of [
      "make the parser fast",
      "Iteration 3 of 6",
      "src/parser.ts",
      "2 failed",
      "benchmark the tokenizer",
    ])
      expect(text).toContain(fact)
  })
  it("the failing checks are the latest run's, marked with the iteration it ran at (0: before the first prompt)", () => {
    expect(buildHandoff("Looked around.", facts({ checksRanAt: 0 }))).toContain(
      "- Failing checks (latest run, before the first prompt):\n  - test (test): failed — 2 failed",
    )
    expect(buildHandoff("Looked around.", facts({ checksRanAt: 2 }))).toContain(
      "- Failing checks (latest run, iteration 2):\n  - test (test): failed",
    )
  })

  it("the latest check run is the last iteration's, else a criteria loop's run before its first prompt", () => {
    const run = (iteration: number) => snapshotOf(iteration, 0, [])
    expect(latestCheckRun({ snapshots: [], initialChecks: run(0) })?.iteration).toBe(0)
    expect(latestCheckRun({ snapshots: [run(1), run(3)], initialChecks: run(0) })?.iteration).toBe(3)
    expect(latestCheckRun({ snapshots: [] })).toBeUndefined()
  })

  it("does not repeat an open todo the summary already names", () => {
    expect(buildHandoff("Still open: benchmark the tokenizer.", facts())).not.toContain("- Open todos")
  })
  it("stays within the budget however long the summary and the lists grow", () => {
    const long = buildHandoff(
      "x".repeat(50_000),
      facts({ files: Array.from({ length: 500 }, (_, i) => `src/file${i}.ts`) }),
    )
    expect(long.length).toBeLessThanOrEqual(HANDOFF_BUDGET + 100)
    expect(long).toContain("… and 488 more")
    expect(long).toContain("summary cut to fit")
  })
})

describe("gotchas", () => {
  it("each failing check becomes a gotcha, shown for the files it names", async () => {
    const { learnGotchas, gotchasFor } = await import("../../src/loop/gotchas.js")
    const snap = snapshotOf(2, 0, [
      {
        name: "types",
        kind: "typecheck",
        command: "tsc",
        status: "failed",
        exitCode: 2,
        durationMs: 1,
        output: "src/a.ts(1,1): error TS2322: bad",
        errors: 1,
        warnings: 0,
        info: 0,
        security: 0,
        testsRun: 0,
        testsFailed: 0,
        testsPassed: 0,
        files: [{ path: "src/a.ts", errors: 1, warnings: 0 }],
      },
    ])
    const gotchas = learnGotchas([], snap)
    expect(gotchas).toEqual([
      {
        title: "types: src/a.ts(1,1): error TS2322: bad",
        message: "src/a.ts(1,1): error TS2322: bad",
        files: ["src/a.ts"],
        iteration: 2,
      },
    ])
    expect(gotchasFor(gotchas, ["src/a.ts"])).toHaveLength(1)
    expect(gotchasFor(gotchas, ["src/b.ts"])).toHaveLength(0)
    expect(buildHandoff("s", facts({ gotchas: ["types: bad (iteration 2; src/a.ts)"] }))).toContain(
      "Gotchas from earlier failures on these files",
    )
  })
})

describe("circular fixes", () => {
  const run = (failing: string[]) =>
    snapshotOf(
      1,
      0,
      ["A", "B"].map(
        (name): CheckResult => ({
          name,
          kind: "test",
          command: name,
          status: failing.includes(name) ? "failed" : "passed",
          exitCode: failing.includes(name) ? 1 : 0,
          durationMs: 1,
          output: `error in ${name}`,
          errors: 0,
          warnings: 0,
          info: 0,
          security: 0,
          testsRun: 1,
          testsFailed: failing.includes(name) ? 1 : 0,
          testsPassed: 0,
          files: [],
        }),
      ),
    )
  it("names a failure that comes back after being fixed (A → B → A)", () => {
    expect(recurringFailures([run(["A"]), run(["B"]), run(["A"])])).toEqual(["A: error in A"])
    expect(recurringFailures([run(["A"]), run(["A"]), run(["B"])])).toEqual([])
  })
})
