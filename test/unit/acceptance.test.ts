// What the user accepts while a loop runs (issue 46): the keys of what refused the last claim, an
// accept of some or all of them, the files the replay then keeps as the end has them, the findings
// marked "accepted by you", and a model's command that would accept its own findings.
import { describe, expect, it } from "vitest"
import { acceptableKeys, acceptedReplayFiles, acceptKeys } from "../../src/evidence/acceptance.js"
import { findingKey, type Finding } from "../../src/evidence/finding.js"
import { evidenceOf, weakenedOf } from "../../src/evidence/record.js"
import { expectationKey, type Replay } from "../../src/evidence/replay-record.js"
import { guardLines, guardSummary } from "../../src/evidence/guard-summary.js"
import { selfAcceptRefusal } from "../../src/loop/self-accept.js"

const skip: Finding = { kind: "skip", file: "test/a.test.ts", name: "adds", line: 3, before: null, after: "it.skip(" }
const expectation: Finding = { kind: "expectation", file: "test/a.test.ts", before: "toBe(3)", after: "toBe(0)" }
const greeting = { file: "test/greet.test.ts", name: "greets", start: 'toBe("Hello")', end: 'toBe("Hi")' }

const failing = (failures: string[]) => ({
  name: "unit",
  command: "npm test",
  exitCode: 1,
  passed: false,
  tests: { passed: 0, failed: 1, skipped: 0 },
  failures,
  outputSha256: "",
})

const ran = (over: Partial<Extract<Replay, { status: "ran" }>>): Replay => ({
  status: "ran",
  tree: "t",
  putBack: [],
  leftOut: [],
  merged: [],
  ignored: [],
  checks: [],
  expectations: [],
  ...over,
})

const accepted = (key: string) => ({ key, at: "2026-12-02T10:00:00.000Z", via: "ralph-loop accept" })

describe("acceptableKeys", () => {
  it("names the standing findings, not an expectation (which refuses nothing) nor one accepted already", () => {
    const findings = weakenedOf([skip, expectation], new Set())
    expect(acceptableKeys({ findings })).toEqual([findingKey(skip)])
    expect(acceptableKeys({ findings: weakenedOf([skip], new Set([findingKey(skip)])) })).toEqual([])
    expect(acceptableKeys(undefined)).toEqual([])
  })

  it("names the changed expectations of a replay refused over them, and the put-back files of a failed one", () => {
    const expectations = ran({
      putBack: ["test/greet.test.ts"],
      checks: [failing(["test/greet.test.ts > greets"])],
      expectations: [greeting],
    })
    expect(acceptableKeys({ findings: [], replay: expectations })).toEqual([expectationKey(greeting)])
    const failed = ran({
      putBack: ["test/sum.test.ts"],
      merged: ["package.json"],
      checks: [failing(["test/sum.test.ts > adds"])],
    })
    expect(acceptableKeys({ findings: [], replay: failed })).toEqual(["replay:test/sum.test.ts", "replay:package.json"])
    // A replay that passed refused nothing.
    expect(acceptableKeys({ findings: [], replay: ran({ putBack: ["test/sum.test.ts"] }) })).toEqual([])
  })
})

describe("acceptKeys", () => {
  const claim = { findings: weakenedOf([skip], new Set()) }

  it("accepts the keys named, or all that refused when none is named; one accepted before is said so", () => {
    expect(acceptKeys(claim, [], [findingKey(skip)])).toEqual({ ok: true, accepted: [findingKey(skip)], already: [] })
    expect(acceptKeys(claim, [], [])).toEqual({ ok: true, accepted: [findingKey(skip)], already: [] })
    expect(acceptKeys(claim, [accepted(findingKey(skip))], [findingKey(skip)])).toEqual({
      ok: true,
      accepted: [],
      already: [findingKey(skip)],
    })
  })

  it("refuses a key that names nothing that refused the claim, listing what it could name; and an empty accept", () => {
    expect(acceptKeys(claim, [], ["skip:test/b.test.ts:x:it.skip("])).toEqual({
      ok: false,
      unknown: ["skip:test/b.test.ts:x:it.skip("],
      acceptable: [findingKey(skip)],
    })
    expect(acceptKeys({ findings: [] }, [], [])).toEqual({ ok: false, unknown: [], acceptable: [] })
  })
})

describe("acceptedReplayFiles", () => {
  it("keeps the file of an accepted expectation or put-back file; a finding's key names none of its own", () => {
    const keys = [expectationKey(greeting), "replay:test/sum.test.ts", findingKey(skip)]
    expect(acceptedReplayFiles(keys)).toEqual(["test/greet.test.ts", "test/sum.test.ts"])
  })
})

describe("accepted by you", () => {
  it("marks a finding accepted by you apart from one the settings accept; the evidence and status say so", () => {
    const [mine, theirs] = weakenedOf(
      [skip, { ...skip, name: "subtracts" }],
      new Set([findingKey({ ...skip, name: "subtracts" })]),
      new Set([findingKey(skip)]),
    )
    expect(mine).toMatchObject({ accepted: true, acceptedBy: "you" })
    expect(theirs).toMatchObject({ accepted: true, acceptedBy: "settings" })
    const run = { name: "unit", command: "npm test", exitCode: 0, tests: null, outputSha256: "", ranAt: 1 }
    const evidence = evidenceOf({
      runs: [run],
      lastChangeAt: null,
      changedFiles: [],
      review: null,
      weakened: [mine, theirs].flatMap((w) => (w ? [w] : [])),
      acceptedByYou: [accepted(findingKey(skip))],
    })
    expect(evidence).toMatchObject({ verified: true, acceptedByYou: [{ key: findingKey(skip) }] })
    const summary = guardSummary({ guard: { iteration: 2, findings: [mine, theirs].flatMap((w) => (w ? [w] : [])) } })
    expect(guardLines(summary).join("\n")).toContain("accepted by you: ")
  })

  it("status names what refused the last claim until it is accepted, and the accepts refused", () => {
    const guard = { iteration: 4, findings: weakenedOf([skip], new Set()) }
    expect(guardSummary({ guard })?.acceptable).toEqual([findingKey(skip)])
    const after = guardSummary({ guard, accepted: [accepted(findingKey(skip))] })
    expect(after?.acceptable).toEqual([])
    const refused = { at: "t", via: "ralph-loop accept", keys: [], why: "a model's shell ran it (session ses_1)" }
    const lines = guardLines(guardSummary({ refusedAccepts: [refused] })).join("\n")
    expect(lines).toContain("Accept refused (ralph-loop accept, t): a model's shell ran it")
    expect(guardSummary({})).toBeNull()
  })
})

describe("selfAcceptRefusal", () => {
  it("refuses a model's ralph-loop accept in its plain forms, and a command that touches the shell's mark", () => {
    for (const command of [
      "ralph-loop accept",
      "npx ralph-loop --project . accept 'skip:a:b:c'",
      "cd x && node ./node_modules/ralph-loop/dist/cli/main.js accept",
      "env -u RALPH_LOOP_MODEL_SESSION sh accept.sh",
    ])
      expect(selfAcceptRefusal("bash", { command }), command).toBeDefined()
  })

  it("lets other commands through: the word accept elsewhere, the state folder read, another tool", () => {
    for (const command of [
      "ralph-loop status && echo accept",
      "cat .opencode/ralph-loop/journal.jsonl | grep accept",
      "grep -r accepted .opencode/ralph-loop/",
      "npm test",
    ])
      expect(selfAcceptRefusal("bash", { command }), command).toBeUndefined()
    expect(selfAcceptRefusal("read", { filePath: "ralph-loop accept" })).toBeUndefined()
  })
})
