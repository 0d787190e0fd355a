import { describe, expect, it } from "vitest"
import { ContinuationWatch } from "../../src/continuations/watch.js"

describe("ContinuationWatch", () => {
  it("takes an idle only after a busy; an idle without one (Esc on an idle session) changes the moment", () => {
    const watch = new ContinuationWatch()
    expect(watch.takeIdle("ses_a", "idle")).toBe(false)
    watch.onBusy("ses_a")
    expect(watch.takeIdle("ses_a", "status")).toBe(true)
    const moment = watch.moment("ses_a")
    expect(watch.unchanged("ses_a", moment)).toBe(true)
    // The same turn end announced the other way (session.idle after session.status idle) is no Esc.
    expect(watch.takeIdle("ses_a", "idle")).toBe(false)
    expect(watch.unchanged("ses_a", moment)).toBe(true)
    // An idle after that, with no busy before it, is.
    expect(watch.takeIdle("ses_a", "idle")).toBe(false)
    expect(watch.unchanged("ses_a", moment)).toBe(false)
  })

  it("typing, the session working again, a request waiting and /cancel-ralph each stop a continuation", () => {
    const cases: Array<(w: ContinuationWatch) => void> = [
      (w) => w.onUserMessage("ses_a"),
      (w) => w.onBusy("ses_a"),
      (w) => w.onTurnEvent("ses_a", { kind: "asked", requestID: "per_1" }),
      (w) => w.cancel("ses_a"),
    ]
    for (const happen of cases) {
      const watch = new ContinuationWatch()
      watch.onBusy("ses_a")
      watch.takeIdle("ses_a", "idle")
      const moment = watch.moment("ses_a")
      happen(watch)
      expect(watch.unchanged("ses_a", moment)).toBe(false)
    }
  })

  it("a new turn forgets the last one's errors, not a request still waiting; the user's message resets the counts and /cancel-ralph", () => {
    const watch = new ContinuationWatch()
    watch.onTurnEvent("ses_a", { kind: "asked", requestID: "per_1" })
    watch.onTurnEvent("ses_a", { kind: "error", error: { name: "APIError", message: "boom" } })
    watch.onBusy("ses_a")
    expect(watch.get("ses_a")?.turnEvents).toMatchObject({ errors: [], pending: ["per_1"] })
    watch.todoStepped("ses_a", { streak: 2, completedAtLast: 1, limitShown: true })
    watch.autoStepped("ses_a", { count: 1, errors: [3], ended: true })
    watch.cancel("ses_a")
    watch.onUserMessage("ses_a")
    expect(watch.get("ses_a")).toMatchObject({
      cancelled: false,
      todo: { streak: 0, limitShown: false },
      auto: { count: 0, errors: [], ended: false },
    })
  })

  it("looks at each reply once", () => {
    const watch = new ContinuationWatch()
    expect(watch.decide("ses_a", "msg_1")).toBe(true)
    expect(watch.decide("ses_a", "msg_1")).toBe(false)
    expect(watch.decide("ses_a", undefined)).toBe(false)
  })

  it("keeps a baseline only for the user's current message", () => {
    const watch = new ContinuationWatch()
    const { userEpoch } = watch.moment("ses_a")
    watch.onUserMessage("ses_a")
    watch.baselineTaken("ses_a", "tree-old", userEpoch)
    expect(watch.get("ses_a")?.baseline).toBeUndefined()
    watch.baselineTaken("ses_a", "tree-1", userEpoch + 1)
    expect(watch.get("ses_a")?.baseline).toBe("tree-1")
  })

  it("/cancel-ralph says whether a continuation was under way", () => {
    const watch = new ContinuationWatch()
    expect(watch.cancel("ses_a")).toBe(false)
    watch.countdownStarted("ses_b", 5_000)
    expect(watch.cancel("ses_b")).toBe(true)
    expect(watch.get("ses_b")?.countdownUntil).toBeUndefined()
  })
})
