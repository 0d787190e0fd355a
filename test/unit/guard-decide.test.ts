// The guard in decide() (issue 39): a claim of done whose changes weaken the checks is refused as a
// failing check is — the next prompt names each finding with its key — unless the user accepted it,
// or the loop's guard mode is warn or off. What was read is recorded with the decision.
import { describe, expect, it } from "vitest"
import { decide, type Facts } from "../../src/loop/decide.js"
import type { Weakened } from "../../src/evidence/record.js"
import type { Turn } from "../../src/loop/turn.js"
import { loop } from "./fixtures.js"

let n = 0
const turn = (text: string): Turn => ({ lastAssistantID: `msg_${++n}`, texts: [text] })
const facts = (t: Turn, weakened?: Weakened[]): Facts => ({
  turn: t,
  sample: { workTree: `tree-${n}`, todosCompleted: 0, openTodos: [], sessionID: "ses_a" },
  now: 1_000,
  weakened,
})
const skip: Weakened = {
  kind: "skip",
  file: "test/a.test.ts",
  name: ".skip",
  line: 3,
  before: null,
  after: '  test.skip("adds", () => {',
  accepted: false,
}
const expectation: Weakened = {
  kind: "expectation",
  file: "test/a.test.ts",
  line: 4,
  before: "expect(add(1, 2)).toBe(3)",
  after: "expect(add(1, 2)).toBe(0)",
  accepted: false,
}

describe("decide: the guard on a claim of done", () => {
  it("refuses a claim whose changes skip a test: the next prompt names the file, the line and the key", () => {
    const { decision, update } = decide(loop(), facts(turn("<promise>DONE</promise>"), [skip]))
    expect(decision).toMatchObject({ type: "restart" })
    const feedback = (decision as { feedback?: string }).feedback ?? ""
    expect(feedback).toContain("The completion claim was refused")
    expect(feedback).toContain('test/a.test.ts:3 skips or focuses a test (.skip): `test.skip("adds", () => {`')
    expect(feedback).toContain('[finding skip:test/a.test.ts:.skip:test.skip("adds", () => {]')
    expect(update.guard).toEqual({ iteration: 1, findings: [skip] })
  })

  it("lets the claim through when the finding is accepted, or only listed (a changed expectation), or with nothing found", () => {
    expect(
      decide(loop(), facts(turn("<promise>DONE</promise>"), [{ ...skip, accepted: true }])).decision,
    ).toMatchObject({ type: "complete" })
    expect(decide(loop(), facts(turn("<promise>DONE</promise>"), [expectation])).decision).toMatchObject({
      type: "complete",
    })
    expect(decide(loop(), facts(turn("<promise>DONE</promise>"), [])).decision).toMatchObject({ type: "complete" })
  })

  it("warn and off let the claim through; the findings are still recorded", () => {
    const warned = decide(loop({}, { guard: "warn" }), facts(turn("<promise>DONE</promise>"), [skip]))
    expect(warned.decision).toMatchObject({ type: "complete" })
    expect(warned.update.guard?.findings).toEqual([skip])
    expect(
      decide(loop({}, { guard: { mode: "off", accept: [] } }), facts(turn("<promise>DONE</promise>"), [skip])).decision,
    ).toMatchObject({ type: "complete" })
  })

  it("a turn that claims nothing is not told about findings, and records none when the guard read none", () => {
    const { decision, update } = decide(loop(), facts(turn("still working")))
    expect(decision).toEqual({ type: "restart", fresh: false })
    expect(update.guard).toBeUndefined()
  })
})
