import { describe, expect, it } from "vitest"
import { observe } from "../../src/host/events.js"

describe("observe", () => {
  it("reads the runtime shapes of the events the loop needs", () => {
    expect(observe({ type: "session.status", properties: { sessionID: "s", status: { type: "busy" } } })).toEqual({
      kind: "busy",
      sessionID: "s",
      retry: false,
    })
    expect(
      observe({ type: "session.status", properties: { sessionID: "s", status: { type: "retry", attempt: 1 } } }),
    ).toEqual({ kind: "busy", sessionID: "s", retry: true })
    expect(observe({ type: "session.status", properties: { sessionID: "s", status: { type: "idle" } } })).toEqual({
      kind: "idle",
      sessionID: "s",
      via: "status",
    })
    expect(observe({ type: "session.status", properties: { status: { type: "idle" } } })).toBeUndefined()
    expect(observe({ type: "session.idle", properties: { sessionID: "s" } })).toEqual({
      kind: "idle",
      sessionID: "s",
      via: "idle",
    })
    expect(
      observe({ type: "session.created", properties: { sessionID: "c", info: { id: "c", parentID: "p" } } }),
    ).toEqual({
      kind: "session-created",
      sessionID: "c",
      parentID: "p",
    })
    expect(observe({ type: "session.deleted", properties: { info: { id: "d" } } })).toEqual({
      kind: "session-deleted",
      sessionID: "d",
    })
  })

  it("reads errors, compaction and permission/question requests", () => {
    const error = {
      name: "APIError",
      data: { message: "quota", statusCode: 429, responseHeaders: { "retry-after": "3" } },
    }
    expect(observe({ type: "session.error", properties: { sessionID: "s", error } })).toEqual({
      kind: "error",
      sessionID: "s",
      error: { name: "APIError", message: "quota", statusCode: 429, headers: { "retry-after": "3" } },
    })
    expect(observe({ type: "session.compacted", properties: { sessionID: "s" } })).toEqual({
      kind: "compacted",
      sessionID: "s",
    })
    expect(observe({ type: "permission.asked", properties: { id: "per_1", sessionID: "s" } })).toEqual({
      kind: "asked",
      sessionID: "s",
      requestID: "per_1",
    })
    expect(observe({ type: "question.asked", properties: { id: "que_1", sessionID: "s" } })).toEqual({
      kind: "asked",
      sessionID: "s",
      requestID: "que_1",
    })
    expect(
      observe({ type: "permission.replied", properties: { sessionID: "s", requestID: "per_1", reply: "once" } }),
    ).toEqual({
      kind: "answered",
      sessionID: "s",
      requestID: "per_1",
    })
    expect(observe({ type: "question.rejected", properties: { sessionID: "s", requestID: "que_1" } })).toMatchObject({
      kind: "answered",
    })
  })

  it("ignores everything else, and malformed payloads", () => {
    expect(observe({ type: "message.part.delta", properties: { delta: "x" } })).toBeUndefined()
    expect(observe({ type: "session.idle" })).toBeUndefined()
    expect(observe({ type: "session.status", properties: { status: { type: "busy" } } })).toBeUndefined()
  })
})
