// What the breaker's same-error count, circular-fix detection and the lessons make of the real
// tools' runs in a row (test/fixtures/runners/): the same failure twice, one fixed while another
// remains, a different failure each run, a failure fixed and back.
import { describe, expect, it } from "vitest"
import { closedBreaker, recordIteration } from "../../src/loop/breaker.js"
import { failureFingerprint, recurringFailures } from "../../src/loop/criteria.js"
import { checkResultSchema, keepHistory, snapshotOf, type DiagnosticSnapshot } from "../../src/checks/diagnostics.js"
import { checkFailures } from "../../src/checks/failures/index.js"
import { lessonsOf, returningFailures } from "../../src/memory/lessons.js"
import { emptyMemory, entries, remember } from "../../src/memory/memory-file.js"
import { history, outputOf, TOOLS } from "./runner-fixtures.js"

const LIMITS = { noProgressThreshold: 100, sameErrorThreshold: 100, cooldownMinutes: 30 }

/** The breaker's same-error count after each iteration ending in these check runs. */
function sameErrorCounts(snapshots: readonly DiagnosticSnapshot[]): number[] {
  let breaker = closedBreaker()
  return snapshots.map((s, i) => {
    breaker = recordIteration(breaker, { progress: true, failure: failureFingerprint(s) }, LIMITS, i)
    return breaker.sameError
  })
}

describe.each(Object.keys(TOOLS))("%s: its runs in a row", (tool) => {
  const { faults } = TOOLS[tool]!
  const idsOf = (letters: string[]) => [...new Set(letters.flatMap((f) => faults[f]!))].sort()

  it("the same failure twice, moved down and timed differently, counts up the breaker's same-error count", () => {
    expect(sameErrorCounts(history(tool, ["same-1.txt", "same-2.txt"]))).toEqual([1, 2])
  })

  it("a different failure each run keeps the same-error count at 1 and is no circular fix", () => {
    const runs = history(tool, ["different-1.txt", "different-2.txt", "different-3.txt", "different-4.txt"])
    expect(sameErrorCounts(runs)).toEqual([1, 1, 1, 1])
    expect(recurringFailures(runs)).toEqual([])
    // Passing in between does not make two different failures one: fixed, then another broken.
    expect(recurringFailures(history(tool, ["different-1.txt", "pass-1.txt", "different-2.txt"]))).toEqual([])
  })

  it("one failure fixed while another remains: the fingerprint names the one left only", () => {
    const [before, after] = history(tool, ["fixed-1.txt", "fixed-2.txt"])
    expect(failureFingerprint(after)).toBe(`checks failing: ${tool}: ${idsOf(["C"]).join("; ")}`)
    expect(failureFingerprint(before)).toBe(`checks failing: ${tool}: ${idsOf(["A", "C"]).join("; ")}`)
    expect(sameErrorCounts([before!, after!])).toEqual([1, 1])
  })

  it("a failure fixed and then back is a circular fix of that failure alone", () => {
    const back = history(tool, ["different-1.txt", "different-2.txt", "different-1.txt"])
    expect(recurringFailures(back)).toEqual(idsOf(["A"]).map((id) => `${tool}: ${id}`))
    expect(recurringFailures(history(tool, ["fixed-1.txt", "fixed-2.txt", "fixed-1.txt"]))).toEqual(
      idsOf(["A"]).map((id) => `${tool}: ${id}`),
    )
  })
})

describe("lessons from real runs", () => {
  it("pytest: two different tests fixed one after the other are two failures of one lesson, and no circular fix", () => {
    const snapshots = history("pytest", ["different-1.txt", "pass-1.txt", "different-2.txt", "pass-1.txt"])
    const recurring = recurringFailures(snapshots)
    expect(recurring).toEqual([])
    expect(lessonsOf({ snapshots, checkNames: ["pytest"], recurring, changed: ["calc.py"] })).toEqual([
      {
        source: "lesson",
        text: "check pytest failed on test_calc.py: test_calc.py::test_adds_small_numbers; test_calc.py::test_adds_negative_numbers — fixed in iteration 4 by changing calc.py",
      },
    ])
  })

  it("vitest: failures in two files make a lesson each; the one back in a later loop is named, another failure is not", () => {
    const snapshots = history("vitest", ["fixed-1.txt", "different-4.txt", "pass-1.txt"])
    const lessons = lessonsOf({
      snapshots,
      checkNames: ["vitest"],
      recurring: recurringFailures(snapshots),
      changed: ["src/calc.js"],
    })
    expect(lessons.map((l) => l.text)).toEqual([
      "check vitest failed on test/calc.test.js: test/calc.test.js > calc > adds small numbers; test/calc.test.js > calc > multiply > multiplies — fixed in iteration 2 by changing src/calc.js",
      "check vitest failed on test/format.test.js: test/format.test.js > formats a total — fixed in iteration 3 by changing src/calc.js",
    ])
    const memory = lessons.reduce((m, l) => remember(m, "working", { ...l, date: "2026-11-02" }, 50), emptyMemory())
    const [again] = history("vitest", ["same-2.txt"])
    expect(returningFailures(entries(memory, "working"), again, ["vitest"])).toEqual([
      expect.stringContaining("test/calc.test.js > calc > adds small numbers"),
    ])
    const [other] = history("vitest", ["different-2.txt"])
    expect(returningFailures(entries(memory, "working"), other, ["vitest"])).toEqual([])
  })
})

describe("failures kept with the run", () => {
  it("older runs keep their failures when their output is cut to 1 KB, and a run saved without them is read from its output", () => {
    const runs = history("vitest", ["different-1.txt", "different-2.txt", "different-1.txt"])
    const kept = keepHistory(runs)
    expect(kept[0]!.checks[0]!.output.length).toBe(1024)
    expect(recurringFailures(kept)).toEqual(["vitest: test/calc.test.js > calc > adds small numbers"])
    const saved = checkResultSchema.parse(JSON.parse(JSON.stringify(runs[0]!.checks[0])))
    expect(saved.failures).toEqual(["test/calc.test.js > calc > adds small numbers"])
    const { failures: _, ...older } = saved
    expect(checkResultSchema.parse(older).failures).toBeUndefined()
    expect(checkFailures(older)).toEqual(["test/calc.test.js > calc > adds small numbers"])
  })

  it("a breaker saved with an older fingerprint counts the next failure afresh", () => {
    const saved = {
      ...closedBreaker(),
      sameError: 4,
      lastError:
        "checks failing: pytest: =================================== FAILURES ===================================",
    }
    const [run] = history("pytest", ["different-2.txt"])
    expect(
      recordIteration(
        saved,
        { progress: false, failure: failureFingerprint(run) },
        { ...LIMITS, sameErrorThreshold: 5 },
        0,
      ),
    ).toMatchObject({ state: "CLOSED", sameError: 1 })
  })

  it("a check that did not finish fails as its status says; one that passed has no failures", () => {
    const base = { output: "collecting … 3 items" }
    expect(checkFailures({ ...base, status: "timeout" })).toEqual(["timed out"])
    expect(checkFailures({ ...base, status: "missing" })).toEqual(["its command was not found"])
    expect(checkFailures({ ...base, status: "error" })).toEqual(["could not run"])
    expect(checkFailures({ ...base, status: "passed" })).toEqual([])
    expect(checkFailures({ output: "", status: "failed" })).toEqual(["failed with no output"])
  })

  it("a run that timed out says nothing of what was fixed: no circular fix across it", () => {
    const [a1, , a3] = history("pytest", ["different-1.txt", "different-2.txt", "different-1.txt"])
    const timedOut = snapshotOf(2, 1, [{ ...a1!.checks[0]!, status: "timeout", output: "[killed after 300 s]" }])
    expect(recurringFailures([a1!, timedOut, a3!])).toEqual([])
  })
})

describe("a long fingerprint", () => {
  it("is of a bounded length and still tells two sets of failures apart", () => {
    const line = outputOf("vitest", "same-1.txt")
      .split("\n")
      .find((l) => l.includes(" FAIL ") && l.includes(" > "))!
    const many = (odd: string) =>
      Array.from({ length: 60 }, (_, i) => line.replace("adds small numbers", `case ${i}${i === 7 ? odd : ""}`)).join(
        "\n",
      )
    const snapshot = (output: string) =>
      snapshotOf(1, 0, [
        {
          name: "vitest",
          kind: "test",
          command: "vitest",
          status: "failed",
          exitCode: 1,
          durationMs: 1,
          output,
          errors: 0,
          warnings: 0,
          info: 0,
          security: 0,
          testsRun: 0,
          testsFailed: 0,
          testsPassed: 0,
          files: [],
        },
      ])
    const fingerprint = failureFingerprint(snapshot(many("")))!
    expect(fingerprint.length).toBeLessThanOrEqual(600)
    expect(fingerprint).toMatch(/^checks failing: vitest: test\/calc\.test\.js > calc > case 0; .*… #[0-9a-f]{16}$/)
    expect(failureFingerprint(snapshot(many(" again")))).not.toBe(fingerprint)
  })
})
