import { describe, expect, it } from "vitest"
import { observe } from "../../src/opencode/events.js"

describe("observe", () => {
  it("reads the runtime shapes of the events the loop needs", () => {
    expect(observe({ type: "session.status", properties: { sessionID: "s", status: { type: "busy" } } })).toEqual({ kind: "busy", sessionID: "s" })
    expect(observe({ type: "session.status", properties: { sessionID: "s", status: { type: "retry", attempt: 1 } } })).toEqual({ kind: "busy", sessionID: "s" })
    expect(observe({ type: "session.status", properties: { sessionID: "s", status: { type: "idle" } } })).toBeUndefined()
    expect(observe({ type: "session.idle", properties: { sessionID: "s" } })).toEqual({ kind: "idle", sessionID: "s" })
    expect(observe({ type: "session.created", properties: { sessionID: "c", info: { id: "c", parentID: "p" } } })).toEqual({
      kind: "session-created",
      sessionID: "c",
      parentID: "p",
    })
    expect(observe({ type: "session.deleted", properties: { info: { id: "d" } } })).toEqual({ kind: "session-deleted", sessionID: "d" })
  })

  it("ignores everything else, and malformed payloads", () => {
    expect(observe({ type: "message.part.delta", properties: { delta: "x" } })).toBeUndefined()
    expect(observe({ type: "session.idle" })).toBeUndefined()
    expect(observe({ type: "session.status", properties: { status: { type: "busy" } } })).toBeUndefined()
  })
})
