import { describe, expect, it } from "vitest"
import { LoopManager } from "../../src/loop/manager.js"
import { loop as makeLoop } from "./fixtures.js"

const settings = makeLoop().settings

describe("LoopManager", () => {
  it("claims one idle per busy→idle transition", () => {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    expect(manager.takeIdle("ses_a")).toBeUndefined() // no busy yet: a stale idle
    manager.onBusy("ses_a")
    expect(manager.takeIdle("ses_a")).toBe(loop)
    expect(loop.phase).toBe("deciding")
    expect(manager.takeIdle("ses_a")).toBeUndefined() // the duplicate idle
    manager.onBusy("ses_a") // busy while deciding (the plugin's own summarize) does not re-arm
    expect(manager.takeIdle("ses_a")).toBeUndefined()
  })

  it("ignores idles of sessions without a loop", () => {
    const manager = new LoopManager()
    manager.onBusy("ses_other")
    expect(manager.takeIdle("ses_other")).toBeUndefined()
  })

  it("moves a loop to a fresh session and keeps its lineage", () => {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    manager.onBusy("ses_a")
    manager.takeIdle("ses_a")
    manager.beginRestart(loop, { fresh: false })
    manager.nextIteration(loop, "ses_b", 1)
    expect(loop).toMatchObject({
      sessionID: "ses_b",
      lineage: ["ses_a"],
      iteration: 2,
      retries: 1,
      phase: "running",
      sawBusy: false,
    })
    expect(manager.get("ses_a")).toBeUndefined()
    expect(manager.get("ses_b")).toBe(loop)
    expect(manager.find("ses_a")).toBe(loop)
    // The old session's late idle does nothing; the new one's turn is claimed after its busy.
    manager.onBusy("ses_a")
    expect(manager.takeIdle("ses_a")).toBeUndefined()
    manager.onBusy("ses_b")
    expect(manager.takeIdle("ses_b")).toBe(loop)
  })

  it("writes a retirement that ends after the stop, unless a new loop took over the state file", () => {
    const events: string[] = []
    const manager = new LoopManager((l, event) => events.push(`${l.id}:${event}:${l.retiring.join(",")}`))
    const restartedThenStopped = (sessionID: string, next: string) => {
      const { loop } = manager.start(sessionID, "task", settings, 0)
      manager.beginRestart(loop, { fresh: false })
      manager.nextIteration(loop, next, 1, true)
      manager.stop(loop, "completed")
      return loop
    }
    const first = restartedThenStopped("ses_a", "ses_b")
    manager.addHint(first, "late hint")
    manager.retired(first, "ses_a")
    expect(events.slice(-2)).toEqual(["ses_a:stopped:completed:ses_a", "ses_a:retired:"])

    // A new loop in ses_c gets the stopped one's id (and state file) back: the late retirement is not written over it.
    const second = restartedThenStopped("ses_c", "ses_d")
    expect(manager.start("ses_c", "again", settings, 0).loop.id).toBe(second.id)
    events.length = 0
    manager.retired(second, "ses_c")
    expect(events).toEqual([])
  })

  it("keeps a decided restart in the same change as the decision, until the next iteration is counted", () => {
    const events: string[] = []
    const manager = new LoopManager((l, event) =>
      events.push(`${event}:${l.restart ? `restart${l.restart.sessionID ? `@${l.restart.sessionID}` : ""}` : "-"}`),
    )
    const { loop } = manager.start("ses_a", "task", settings, 0)
    manager.decided(
      loop,
      { lastAssistantID: "msg_1", texts: [] },
      {},
      { type: "restart", fresh: false, note: "the model stopped" },
    )
    manager.beginRestart(loop, { fresh: false, note: "the model stopped" })
    manager.sessionCreated(loop, "ses_b")
    // A restart begun again (after a crash) keeps the session it had already created.
    manager.beginRestart(loop, { fresh: false })
    expect(loop.restart).toEqual({ fresh: false, sessionID: "ses_b" })
    manager.nextIteration(loop, "ses_b", 1, true)
    expect(loop.restart).toBeUndefined()
    expect(loop.retiring).toEqual(["ses_a"])
    manager.retired(loop, "ses_a")
    expect(loop.retiring).toEqual([])
    expect(events).toEqual([
      "started:-",
      "decided:restart",
      "restarting:restart",
      "session-created:restart@ses_b",
      "restarting:restart@ses_b",
      "iteration:-",
      "retired:-",
    ])
  })

  it("a decision other than a restart leaves no restart behind", () => {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    manager.decided(loop, { lastAssistantID: "msg_1", texts: [] }, {}, { type: "report-missing-promise" })
    expect(loop).toMatchObject({ lastDecidedMessageID: "msg_1", lastDecision: "report-missing-promise" })
    expect(loop.restart).toBeUndefined()
  })

  it("continues in the same session", () => {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    manager.nextIteration(loop, "ses_a", 1)
    expect(loop).toMatchObject({ sessionID: "ses_a", lineage: [], iteration: 2, retries: 1 })
  })

  it("a stopped loop claims nothing and is gone", () => {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    manager.stop(loop, "cancelled")
    manager.onBusy("ses_a")
    expect(manager.takeIdle("ses_a")).toBeUndefined()
    expect(manager.get("ses_a")).toBeUndefined()
    expect(manager.size).toBe(0)
    manager.keepWatching(loop)
    expect(loop.phase).toBe("stopped")
  })

  it("a new /ralph in the same session replaces the running loop", () => {
    const manager = new LoopManager()
    const first = manager.start("ses_a", "one", settings, 0).loop
    const { loop, replaced } = manager.start("ses_a", "two", settings, 1)
    expect(replaced).toBe(first)
    expect(first).toMatchObject({ phase: "stopped", stopReason: "replaced" })
    expect(manager.get("ses_a")).toBe(loop)
  })

  it("pauses and resumes; a paused loop claims no idle", () => {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    manager.pause(loop, "Esc", "person")
    manager.onBusy("ses_a")
    expect(manager.takeIdle("ses_a")).toBeUndefined()
    manager.resume(loop, 1)
    expect(loop.phase).toBe("running")
    manager.onBusy("ses_a")
    expect(manager.takeIdle("ses_a")).toBe(loop)
  })

  it("stops a loop whose session is deleted, but not for a deleted earlier session", () => {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    manager.nextIteration(loop, "ses_b", 1)
    expect(manager.sessionDeleted("ses_a")).toBeUndefined()
    expect(manager.sessionDeleted("ses_b")).toBe(loop)
    expect(loop.stopReason).toBe("session-deleted")
  })

  it("finds a loop by a session it lived in: of two that lived there, the one there last; none once they ended", () => {
    const manager = new LoopManager()
    const first = manager.start("ses_a", "one", settings, 0).loop
    manager.nextIteration(first, "ses_b", 1)
    const second = manager.start("ses_a", "two", settings, 2).loop
    manager.nextIteration(second, "ses_c", 3)
    expect(manager.find("ses_a")).toBe(second)
    manager.stop(second, "cancelled")
    expect(manager.find("ses_a")).toBe(first)
    expect(manager.find("ses_c")).toBeUndefined()
    manager.stop(first, "cancelled")
    expect(manager.find("ses_a")).toBeUndefined()
  })

  it("owns the session a live loop's restart created, until it ends", () => {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    manager.beginRestart(loop, { fresh: true })
    expect(manager.owns("ses_b")).toBe(false)
    manager.sessionCreated(loop, "ses_b")
    expect([manager.owns("ses_a"), manager.owns("ses_b"), manager.find("ses_b")]).toEqual([true, true, undefined])
    manager.nextIteration(loop, "ses_b", 1)
    expect(manager.find("ses_b")).toBe(loop)
    manager.beginRestart(loop, { fresh: true })
    manager.sessionCreated(loop, "ses_c")
    manager.stop(loop, "cancelled")
    expect([manager.owns("ses_a"), manager.owns("ses_b"), manager.owns("ses_c")]).toEqual([false, false, false])
    manager.sessionCreated(loop, "ses_d") // a restart's job that finishes after the stop
    expect(manager.owns("ses_d")).toBe(false)
  })

  it("knows the sessions, review and restart of a loop taken back from disk", () => {
    const manager = new LoopManager()
    const saved = {
      ...makeLoop(),
      phase: "running" as const,
      sessionID: "ses_b",
      lineage: ["ses_a"],
      review: { reviews: 0, rejections: 0, usage: { tokens: 0, cost: 0 }, session: "ses_r" },
      restart: { fresh: true, sessionID: "ses_c" },
    }
    const [loop] = manager.adoptAll([saved], false)
    expect([
      manager.find("ses_a"),
      manager.find("ses_b"),
      manager.owns("ses_c"),
      manager.isReviewSession("ses_r"),
    ]).toEqual([loop, loop, true, true])
    expect(manager.start("ses_a", "again", settings, 1).loop.id).toBe("ses_a-2") // the adopted loop's id is taken
  })

  it("keeps loops of separate managers apart (one per plugin instance)", () => {
    const one = new LoopManager()
    const two = new LoopManager()
    one.start("ses_a", "task", settings, 0)
    expect(two.get("ses_a")).toBeUndefined()
  })
})
