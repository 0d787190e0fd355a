import { describe, expect, it } from "vitest"
import { readSummary, readTurn } from "../../src/loop/read-turn.js"
import { assistant, user } from "./fixtures.js"

describe("readTurn", () => {
  it("takes the assistant's own text after the last user message", () => {
    const messages = [
      user("first"),
      assistant(["old <promise>DONE</promise>"]),
      user("again"),
      assistant(["step"]),
      assistant(["end"]),
    ]
    const turn = readTurn(messages)
    expect(turn.texts).toEqual(["step", "end"])
    expect(turn.lastAssistantID).toBe(messages[4]?.info.id)
    expect(turn.model).toEqual({ providerID: "mock", modelID: "mock-model" })
    expect(turn.agent).toBe("build")
  })

  it("leaves out synthetic and ignored parts, and the user's text", () => {
    const messages = [
      user("write <promise>DONE</promise> at the end"),
      assistant([
        "real",
        { synthetic: true, text: "<promise>DONE</promise>" },
        { ignored: true, text: "<promise>DONE</promise>" },
      ]),
    ]
    expect(readTurn(messages).texts).toEqual(["real"])
  })

  it("leaves out compaction summaries", () => {
    const messages = [user("x"), assistant(["<promise>DONE</promise>"], { summary: true, mode: "compaction" })]
    expect(readTurn(messages).texts).toEqual([])
  })

  it("reports the error of the last message", () => {
    const messages = [
      user("x"),
      assistant(["partial"], { error: { name: "MessageAbortedError", data: { message: "Aborted" } } }),
    ]
    expect(readTurn(messages).error).toEqual({ name: "MessageAbortedError", message: "Aborted" })
  })

  it("falls back to the user's model when the turn has no assistant message", () => {
    const turn = readTurn([user("x", { model: { providerID: "p", modelID: "m" } })])
    expect(turn).toMatchObject({ texts: [], model: { providerID: "p", modelID: "m" } })
    expect(turn.lastAssistantID).toBeUndefined()
  })
})

describe("readSummary", () => {
  it("returns the newest summary's text", () => {
    const messages = [
      assistant(["older summary"], { summary: true }),
      user("x"),
      assistant(["the summary"], { summary: true, mode: "compaction" }),
    ]
    expect(readSummary(messages)).toBe("the summary")
    expect(readSummary([user("x"), assistant(["no summary here"])])).toBeUndefined()
  })
})
