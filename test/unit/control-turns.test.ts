// Which request is a control command's own turn: only the one answering the control message the
// plugin just wrote, until that turn's idle.
import type { Message, Part } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import { ControlTurns } from "../../src/engine/control-turns.js"
import type { RalphContext } from "../../src/engine/context.js"
import { messagesTransformHook } from "../../src/hooks/messages-transform.js"
import { assistant, user } from "./fixtures.js"

describe("ControlTurns", () => {
  it("marks the control message created after the command, until the idle after its turn was busy", () => {
    const turns = new ControlTurns()
    turns.commandRewritten("ses_a")
    turns.idle("ses_a") // a late idle of the turn before: the mark stays
    turns.messageCreated("ses_a", "msg_2", true)
    expect(turns.isControlMessage("ses_a", "msg_2")).toBe(true)
    expect(turns.isControlMessage("ses_b", "msg_2")).toBe(false)
    turns.idle("ses_a")
    expect(turns.isControlMessage("ses_a", "msg_2")).toBe(true)
    turns.busy("ses_a")
    turns.idle("ses_a")
    expect(turns.isControlMessage("ses_a", "msg_2")).toBe(false)
  })

  it("drops the mark when the next message is not the control message, and on a compaction", () => {
    const turns = new ControlTurns()
    turns.commandRewritten("ses_a")
    turns.messageCreated("ses_a", "msg_1", false)
    turns.messageCreated("ses_a", "msg_2", true)
    expect(turns.isControlMessage("ses_a", "msg_2")).toBe(false)
    turns.commandRewritten("ses_a")
    turns.messageCreated("ses_a", "msg_3", true)
    turns.forget("ses_a")
    expect(turns.isControlMessage("ses_a", "msg_3")).toBe(false)
  })
})

describe("the messages transform", () => {
  const run = async (turns: ControlTurns, messages: Array<{ info: Message; parts: Part[] }>) => {
    await messagesTransformHook({ controlTurns: turns } as unknown as RalphContext)({}, { messages })
    return messages
  }

  it("sends a control turn its control message alone, with every tool off", async () => {
    const turns = new ControlTurns()
    const history = [user("the task"), assistant(["working"])]
    const control = user("[ralph-loop control] /ralph-status")
    turns.commandRewritten("ses_a")
    turns.messageCreated("ses_a", control.info.id, true)
    const sent = await run(turns, [...history, control])
    expect(sent).toEqual([control])
    expect(control.info.role === "user" && control.info.tools?.bash).toBe(false)
    expect(turns.isControlRequest("ses_a")).toBe(true)
  })

  it("leaves every other request alone, also a later one of the same session while the mark lasts", async () => {
    const turns = new ControlTurns()
    const control = user("[ralph-loop control] /ralph-status")
    turns.commandRewritten("ses_a")
    turns.messageCreated("ses_a", control.info.id, true)
    const next = user("the loop's next prompt")
    const messages = [user("the task"), assistant(["working"]), control, assistant(["OK"]), next]
    const sent = await run(turns, [...messages])
    expect(sent).toEqual(messages)
    expect(next.info.role === "user" && next.info.tools).toBeUndefined()
    expect(turns.isControlRequest("ses_a")).toBe(false)
  })
})
