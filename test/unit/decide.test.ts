import { describe, expect, it } from "vitest"
import { decide } from "../../src/loop/decide.js"
import { loop } from "./fixtures.js"

const turn = (text: string, extra = {}) => ({ lastAssistantID: "msg_9", texts: [text], ...extra })

describe("decide", () => {
  it("completes on the promise", () => {
    expect(decide(loop(), turn("<promise>DONE</promise>"))).toEqual({ type: "complete" })
  })

  it("completes on the promise even on the last allowed iteration", () => {
    expect(decide(loop({ retries: 3 }), turn("<promise>DONE</promise>"))).toEqual({ type: "complete" })
  })

  it("restarts while retries are left, stops when they are used up", () => {
    expect(decide(loop({ retries: 2 }), turn("working"))).toEqual({ type: "restart" })
    expect(decide(loop({ retries: 3 }), turn("working"))).toEqual({ type: "retries-exhausted" })
  })

  it("maxRetries 0 never restarts", () => {
    const zero = loop({ settings: { ...loop().settings, maxRetries: 0 } })
    expect(decide(zero, turn("working"))).toEqual({ type: "retries-exhausted" })
  })

  it("reports instead of restarting when autoRestart is off", () => {
    const passive = loop({ settings: { ...loop().settings, autoRestart: false } })
    expect(decide(passive, turn("working"))).toEqual({ type: "report-missing-promise" })
  })

  it("pauses when the user aborted the turn (Esc)", () => {
    const aborted = turn("half a thought", { error: { name: "MessageAbortedError", message: "aborted" } })
    expect(decide(loop(), aborted).type).toBe("pause")
  })

  it("ignores a turn it has already decided on", () => {
    expect(decide(loop({ lastDecidedMessageID: "msg_9" }), turn("working"))).toEqual({
      type: "ignore",
      reason: "turn already decided",
    })
  })

  it("restarts a turn that produced no assistant message at all", () => {
    expect(decide(loop(), { texts: [] })).toEqual({ type: "restart" })
  })
})
