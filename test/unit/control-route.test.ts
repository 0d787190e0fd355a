// Which process takes a control request (src/control/route.ts), and the control channel with two
// processes on one folder and with a rollback under way: the owner takes its loop's requests, the
// lease holder the project's, the other leaves the file alone; a status never waits behind a rollback;
// a request no process took is answered with who should have taken it.
import { readdirSync } from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import { ControlChannel, type ControlAct, type ControlRoute } from "../../src/control/channel.js"
import { controlFolder, sendControl } from "../../src/control/client.js"
import type { ControlRequest } from "../../src/control/request.js"
import { routeRequest, type OthersLoop, type RouteFacts } from "../../src/control/route.js"
import { HOST } from "../../src/owner/heartbeat-files.js"
import { STALLED_MS } from "../../src/owner/heartbeat.js"
import { JOURNAL_LIMITS } from "../../src/store/journal.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { writePresence } from "../../src/owner/presence-files.js"
import { ProjectLease } from "../../src/owner/project-lease.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"

const tempDir = tempDirs()
const channels: ControlChannel[] = []
afterEach(() => {
  for (const c of channels.splice(0)) c.dispose()
})

const ask = (verb: ControlRequest["verb"], extra: Partial<ControlRequest> = {}): ControlRequest => ({
  id: "1700000000000-00000000",
  verb,
  ...extra,
})
const loopA = { id: "ses_A", sessionID: "ses_A", lineage: [] }
const loopB = (alive: boolean): OthersLoop => ({
  id: "ses_B",
  sessionID: "ses_B2",
  lineage: ["ses_B"],
  owner: { alive, described: `OpenCode (pid 7, ${alive ? "running" : "not running"})` },
})
const facts = (over: Partial<RouteFacts>): RouteFacts => ({ mine: [], others: [], leaseHolder: false, ...over })

describe("the route of a control request", () => {
  it("a loop's request goes to its owner; the other process leaves it, holder of the lease or not", () => {
    expect(routeRequest(ask("pause", { loop: "ses_A" }), facts({ mine: [loopA], others: [loopB(true)] }))).toEqual({
      take: true,
      queue: "loop ses_A",
    })
    expect(
      routeRequest(ask("pause", { loop: "ses_B" }), facts({ mine: [loopA], others: [loopB(true)], leaseHolder: true })),
    ).toMatchObject({ take: false, why: expect.stringContaining("pid 7") })
    // None named, one live loop in the project: its owner's.
    expect(routeRequest(ask("hint", { text: "x" }), facts({ others: [loopB(true)], leaseHolder: true }))).toMatchObject(
      { take: false },
    )
    expect(routeRequest(ask("hint", { text: "x" }), facts({ mine: [loopA] }))).toEqual({
      take: true,
      queue: "loop ses_A",
    })
  })

  it("a status in a loop's session goes to that loop's owner (an earlier session of it too); any other status to the lease holder, not queued", () => {
    expect(
      routeRequest(
        ask("status", { session: "ses_B" }),
        facts({ mine: [loopA], others: [loopB(true)], leaseHolder: true }),
      ),
    ).toMatchObject({ take: false })
    expect(routeRequest(ask("status", { session: "ses_A" }), facts({ mine: [loopA] }))).toEqual({
      take: true,
      queue: undefined,
    })
    expect(routeRequest(ask("status"), facts({ mine: [loopA] }))).toMatchObject({ take: false })
    expect(routeRequest(ask("status", { session: "ses_C" }), facts({ leaseHolder: true }))).toEqual({
      take: true,
      queue: undefined,
    })
  })

  it("the project's requests (memory, several loops, no loop, a loop whose owner stopped, an unreadable request) go to the lease holder alone", () => {
    expect(routeRequest(ask("remember", { text: "x" }), facts({ mine: [loopA] }))).toMatchObject({ take: false })
    expect(routeRequest(ask("remember", { text: "x" }), facts({ leaseHolder: true }))).toEqual({
      take: true,
      queue: "memory",
    })
    expect(routeRequest(undefined, facts({ leaseHolder: true }))).toEqual({ take: true, queue: undefined })
    expect(routeRequest(undefined, facts({ mine: [loopA] }))).toMatchObject({ take: false })
    // `ralph-loop clean` beside an open OpenCode: the holder does it, whoever runs the loops.
    expect(routeRequest(ask("clean", { days: 30 }), facts({ mine: [loopA] }))).toMatchObject({ take: false })
    expect(routeRequest(ask("clean", { days: 30 }), facts({ leaseHolder: true }))).toEqual({
      take: true,
      queue: "clean",
    })
    expect(
      routeRequest(ask("pause"), facts({ mine: [loopA], others: [loopB(true)], leaseHolder: true })),
    ).toMatchObject({
      take: true,
      refusal: { message: "2 Ralph loops are live in this project; name one: ses_A, ses_B." },
    })
    expect(
      routeRequest(ask("pause", { loop: "ses_B" }), facts({ others: [loopB(false)], leaseHolder: true })),
    ).toMatchObject({
      take: true,
      refusal: { message: expect.stringContaining("is run by OpenCode (pid 7, not running)") },
    })
    expect(routeRequest(ask("pause", { loop: "ses_B" }), facts({ others: [loopB(false)] }))).toMatchObject({
      take: false,
    })
    // A rollback of an ended loop: the lease holder's act reads it from disk.
    expect(routeRequest(ask("rollback", { loop: "ses_Z" }), facts({ leaseHolder: true }))).toEqual({
      take: true,
      queue: "loop ses_Z",
    })
  })
})

/** A channel acting as `act` says, routed as `route` says. */
function channel(dir: string, act: ControlAct, route?: ControlRoute, taker?: string): ControlChannel {
  const c = new ControlChannel(dir, act, () => undefined, Date.now, undefined, {
    ...(route ? { route } : {}),
    ...(taker ? { taker } : {}),
  })
  channels.push(c)
  c.start()
  return c
}

describe("the control channel with two processes, and side by side", () => {
  it("ten requests to a loop of one of two channels on one folder: all ten reach its owner, the other takes none", async () => {
    const dir = tempDir("ralph-route-")
    const acted = { owner: 0, other: 0 }
    const routeOf =
      (mine: (typeof loopA)[]): ControlRoute =>
      async (r) =>
        routeRequest(
          r,
          facts({
            mine,
            others: mine.length ? [] : [{ ...loopA, owner: { alive: true, described: "the owner" } }],
            leaseHolder: mine.length === 0,
          }),
        )
    channel(
      dir,
      async () => {
        acted.owner++
        return { ok: true, title: "done", message: "" }
      },
      routeOf([loopA]),
      "owner",
    )
    channel(
      dir,
      async () => {
        acted.other++
        return { ok: false, title: "No live Ralph loop here is ses_A.", message: "" }
      },
      routeOf([]),
      "other",
    )
    const outcomes = []
    for (let i = 0; i < 10; i += 1)
      outcomes.push(await sendControl(dir, { verb: "hint", loop: "ses_A", text: `hint ${i}` }))
    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill("done"))
    expect(acted).toEqual({ owner: 10, other: 0 })
  })

  it("a status is answered while a rollback of the loop is under way; a pause sent meanwhile waits for the rollback, then is done", async () => {
    const dir = tempDir("ralph-route-")
    let release: () => void = () => undefined
    const rollbackHeld = new Promise<void>((resolve) => (release = resolve))
    let rollbackStarted: () => void = () => undefined
    const started = new Promise<void>((resolve) => (rollbackStarted = resolve))
    const order: string[] = []
    const act: ControlAct = async (r) => {
      if (r.verb === "rollback") {
        rollbackStarted()
        await rollbackHeld
      }
      order.push(r.verb)
      return { ok: true, title: r.verb, message: "" }
    }
    channel(dir, act, async (r) => routeRequest(r, facts({ mine: [loopA] })))
    const rollback = sendControl(dir, { verb: "rollback", loop: "ses_A" })
    await started
    const pause = sendControl(dir, { verb: "pause", loop: "ses_A" })
    // The rollback waits for the status: were the status to wait for the rollback, neither would end.
    const status = await sendControl(dir, { verb: "status", session: "ses_A" })
    expect(status).toMatchObject({ status: "done", title: "status" })
    expect(order).toEqual(["status"])
    // The pause was taken (its client no longer withdraws it) and waits behind the rollback.
    expect(readdirSync(controlFolder(dir)).some((n) => n.endsWith(".taken.json"))).toBe(true)
    release()
    expect((await rollback).status).toBe("done")
    expect((await pause).status).toBe("done")
    expect(order).toEqual(["status", "rollback", "pause"])
  })
})

describe("a request no process took", () => {
  it("the client's answer names the loop's owner and whether it runs (its heartbeat, its pid); else the lease holder", async () => {
    const dir = tempDir("ralph-route-")
    const now = Date.now()
    const store = new LoopStore(dir, undefined, JOURNAL_LIMITS, "boot-live")
    await store.save(loop({ id: "ses_live1", sessionID: "ses_live1" }), "test", now)
    await store.flush()
    await writePresence(dir, { pid: process.pid, host: HOST, boot: "boot-live", heartbeat: now, what: "OpenCode" })
    const live = await sendControl(dir, { verb: "pause", loop: "ses_live1" }, { timeoutMs: 300 })
    expect(live.status).toBe("no-answer")
    expect(live.message).toContain(
      `The loop ses_live1 is run by OpenCode (pid ${process.pid} on ${HOST}, running; last heartbeat `,
    )
    // Its heartbeat stopped long ago (past STALLED_MS, though its pid runs): said as not running.
    await writePresence(dir, {
      pid: process.pid,
      host: HOST,
      boot: "boot-live",
      heartbeat: now - STALLED_MS - 60_000,
      what: "OpenCode",
    })
    expect((await sendControl(dir, { verb: "pause", loop: "ses_live1" }, { timeoutMs: 300 })).message).toContain(
      `(pid ${process.pid} on ${HOST}, not running; last heartbeat `,
    )
    // No loop named: who holds the project's lease.
    await new ProjectLease(dir, { pid: process.pid, host: HOST, boot: "boot-lease", what: "OpenCode" }).tick()
    expect((await sendControl(dir, { verb: "status" }, { timeoutMs: 300 })).message).toContain(
      `The project's lease is held by OpenCode (pid ${process.pid} on ${HOST}, running;`,
    )
  })
})
