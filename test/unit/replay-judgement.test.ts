// What the replay says of a claim (issue 46): proven, refused naming the failing tests and what hid
// them, a changed expectation refused once then let through as not verified, or unproven.
import { describe, expect, it } from "vitest"
import { changedExpectations, testBody } from "../../src/replay/expectations.js"
import { replayVerdict, type Replay } from "../../src/evidence/replay-record.js"
import { judgeReplay } from "../../src/loop/replay-judgement.js"
import { evidenceOf, planNote } from "../../src/evidence/record.js"

const check = (passed: boolean, failures: string[] = []) => ({
  name: "unit",
  command: "npm test",
  exitCode: passed ? 0 : 1,
  passed,
  tests: { passed: passed ? 1 : 0, failed: passed ? 0 : 1, skipped: 0 },
  failures,
  outputSha256: "",
})

const ran = (over: Partial<Extract<Replay, { status: "ran" }>>): Replay => ({
  status: "ran",
  tree: "t",
  putBack: ["test/greet.test.ts"],
  leftOut: [],
  merged: [],
  ignored: [],
  checks: [check(true)],
  expectations: [],
  ...over,
})

const greeting = {
  file: "test/greet.test.ts",
  name: "greets",
  start: 'expect(greet()).toBe("Hello")',
  end: 'expect(greet()).toBe("Hi")',
}

describe("replayVerdict", () => {
  it("proves a claim when the start's tests passed, or none changed", () => {
    expect(replayVerdict({ status: "not-needed" })).toBe("proven")
    expect(replayVerdict(ran({}))).toBe("proven")
  })

  it("fails when a start test fails on the end's code", () => {
    expect(replayVerdict(ran({ checks: [check(false, ["test/greet.test.ts > greets"])] }))).toBe("failed")
  })

  it("is a changed expectation only when every failure is one and nothing but those tests changed", () => {
    const failing = [check(false, ["test/greet.test.ts > greets"])]
    expect(replayVerdict(ran({ checks: failing, expectations: [greeting] }))).toBe("expectations")
    const config = ran({
      checks: failing,
      expectations: [greeting],
      putBack: ["test/greet.test.ts", "vitest.config.ts"],
    })
    expect(replayVerdict(config)).toBe("failed")
    const other = [check(false, ["test/greet.test.ts > greets", "test/greet.test.ts > waves"])]
    expect(replayVerdict(ran({ checks: other, expectations: [greeting] }))).toBe("failed")
  })

  it("is unproven when it could not run", () => {
    expect(replayVerdict({ status: "could-not-run", reason: "no git" })).toBe("unproven")
  })
})

describe("judgeReplay", () => {
  const expectations = ran({ checks: [check(false, ["test/greet.test.ts > greets"])], expectations: [greeting] })

  it("refuses a changed expectation once, naming both versions; the same change again is let through", () => {
    const first = judgeReplay({ guard: undefined }, expectations, [])
    expect(first.refused.join("\n")).toContain('`expect(greet()).toBe("Hello")` became `expect(greet()).toBe("Hi")`')
    const guard = { iteration: 1, findings: [], refusedExpectations: first.refusedExpectations }
    const second = judgeReplay({ guard }, expectations, [])
    expect(second.refused).toEqual([])
    expect(second.proves).toBe(true)
  })

  it("refuses a failing replay with the failing tests and what hid them", () => {
    const failed = ran({ checks: [check(false, ["test/sum.test.ts > adds"])], putBack: ["test/sum.test.ts"] })
    const words = judgeReplay({ guard: undefined }, failed, []).refused.join("\n")
    expect(words).toContain("test/sum.test.ts > adds")
    expect(words).toContain("test/sum.test.ts: changed, deleted or renamed by you")
  })

  it("lets the guard's findings refuse as before when the replay could not run", () => {
    const judged = judgeReplay({ guard: undefined }, { status: "could-not-run", reason: "x" }, [])
    expect(judged).toMatchObject({ verdict: "unproven", proves: false, refused: [] })
  })
})

describe("the evidence of a replay", () => {
  const runs = [{ name: "unit", command: "npm test", exitCode: 0, tests: null, outputSha256: "", ranAt: 1 }]
  const base = { runs, lastChangeAt: null, changedFiles: [], review: null, weakened: [] }

  it("is verified only when the replay proved the claim", () => {
    expect(evidenceOf({ ...base, replay: { status: "not-needed" } }).verified).toBe(true)
    const expected = ran({ checks: [check(false, ["test/greet.test.ts > greets"])], expectations: [greeting] })
    const evidence = evidenceOf({ ...base, replay: expected })
    expect(evidence.verified).toBe(false)
    expect(planNote(evidence, 2)).toBe("Done in iteration 2, not verified: the expectation of `greets` changed")
    const unproven = evidenceOf({
      ...base,
      replay: { status: "could-not-run", reason: "the project is not in a git repository" },
    })
    expect(planNote(unproven, 1)).toContain("could not be run again: the project is not in a git repository")
  })

  it("is not verified when a check's runner reported failures at exit 0", () => {
    const zero = [{ ...runs[0]!, tests: { passed: 3, failed: 1, skipped: 0 } }]
    expect(evidenceOf({ ...base, runs: zero, replay: { status: "not-needed" } }).verified).toBe(false)
  })
})

describe("changed expectations", () => {
  const start = 'import { greet } from "../src/greet"\n\ntest("greets", () => {\n  expect(greet()).toBe("Hello")\n})\n'
  const end = start.replace('"Hello"', '"Hi"')

  it("reads a test's body from its definition to its end", () => {
    expect(testBody(start, "test/greet.test.ts", "greets")).toEqual([
      'test("greets", () => {',
      'expect(greet()).toBe("Hello")',
      "})",
    ])
    const py = "def test_adds():\n    assert add(1, 2) == 3\n\ndef test_other():\n    pass\n"
    expect(testBody(py, "test_sum.py", "test_adds")).toEqual(["def test_adds():", "assert add(1, 2) == 3"])
  })

  it("names a failing test whose body the loop changed, and not one it left alone", () => {
    const texts = () => ({ start, end })
    expect(changedExpectations({ failures: ["test/greet.test.ts > greets"], texts })).toEqual([greeting])
    expect(
      changedExpectations({ failures: ["test/greet.test.ts > greets"], texts: () => ({ start, end: start }) }),
    ).toEqual([])
  })
})
