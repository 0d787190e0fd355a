// The one liveness rule (src/owner/liveness.ts): each case of an owner's record, its heartbeat and
// what this process sees.
import { describe, expect, it } from "vitest"
import { STALE_MS, STALLED_MS, type Heartbeat } from "../../src/owner/heartbeat.js"
import { beatLiveness, ownerLiveness, type Us } from "../../src/owner/liveness.js"

const now = 10_000_000
const us = (running: number[] = [], boot = "our-boot"): Us => ({
  host: "here",
  pid: 1,
  boot,
  now,
  pidAlive: (pid) => running.includes(pid),
})
const beat = (over: Partial<Heartbeat> = {}): Heartbeat => ({
  pid: 100,
  host: "here",
  boot: "their-boot",
  heartbeat: now - 1_000,
  ...over,
})
const owner = { pid: 100, host: "here", boot: "their-boot" }

describe("whether a loop's owner, the lease's holder or a request's taker still runs", () => {
  it("a local owner whose pid is dead is gone, however fresh its heartbeat", () => {
    expect(ownerLiveness(owner, beat(), us([]))).toEqual({ alive: false, why: "pid-gone" })
    expect(ownerLiveness({ pid: 100, host: "here" }, undefined, us([]))).toEqual({ alive: false, why: "pid-gone" })
  })

  it("a reused pid is not the owner: alive, but its boot id's heartbeat is an hour old (a reboot gave the pid away)", () => {
    expect(ownerLiveness(owner, beat({ heartbeat: now - 3_600_000 }), us([100]))).toEqual({
      alive: false,
      why: "stale",
    })
  })

  it("a reused pid is not the owner: alive, with no heartbeat of its boot id and a live one of another holding it", () => {
    const other = beat({ boot: "another-boot", heartbeat: now })
    expect(ownerLiveness(owner, undefined, us([100]), [other])).toEqual({ alive: false, why: "pid-reused" })
    // This very process under another boot id: a former instance of it (disposed, or before a restart
    // that got the same pid, as pid 1 in a container does) — even with a fresh heartbeat of that boot id.
    expect(ownerLiveness({ ...owner, pid: 1 }, undefined, us([1]))).toEqual({ alive: false, why: "pid-reused" })
    expect(ownerLiveness({ ...owner, pid: 1 }, beat({ pid: 1 }), us([1]))).toEqual({ alive: false, why: "pid-reused" })
    // Asked without an instance's boot id (a process-wide question): a record of this pid is judged by its heartbeat.
    expect(beatLiveness(beat({ pid: 1 }), { ...us([1]), boot: undefined })).toEqual({ alive: true, why: "beating" })
  })

  it("an owner on another host is alive while its heartbeat is fresh (its pid is never asked here)", () => {
    const there = { ...owner, host: "there" }
    expect(ownerLiveness(there, beat({ host: "there" }), us([]))).toEqual({ alive: true, why: "beating" })
  })

  it("an owner on another host whose heartbeat is stale, or that has none, is gone", () => {
    const there = { ...owner, host: "there" }
    const stale = beat({ host: "there", heartbeat: now - STALE_MS - 1 })
    expect(ownerLiveness(there, stale, us([100]))).toEqual({ alive: false, why: "stale" })
    expect(ownerLiveness(there, undefined, us([100]))).toEqual({ alive: false, why: "no-heartbeat" })
  })

  it("a local owner alive under its own boot id is alive; so is this very instance", () => {
    expect(ownerLiveness(owner, beat(), us([100]))).toEqual({ alive: true, why: "beating" })
    expect(ownerLiveness({ pid: 1, host: "here", boot: "our-boot" }, undefined, us([1]))).toEqual({
      alive: true,
      why: "us",
    })
    // Of a version before heartbeats (no boot id, no file): its pid is all there is to ask.
    expect(ownerLiveness({ pid: 100, host: "here" }, undefined, us([100]))).toEqual({ alive: true, why: "pid-runs" })
  })

  it("a stalled local owner (its pid runs, its heartbeat is stale) keeps what it owns up to STALLED_MS, then is gone", () => {
    expect(ownerLiveness(owner, beat({ heartbeat: now - STALE_MS - 1 }), us([100]))).toEqual({
      alive: true,
      why: "stalled",
    })
    expect(ownerLiveness(owner, beat({ heartbeat: now - STALLED_MS }), us([100])).alive).toBe(true)
    expect(ownerLiveness(owner, beat({ heartbeat: now - STALLED_MS - 1 }), us([100]))).toEqual({
      alive: false,
      why: "stale",
    })
    // Unless another live heartbeat holds its pid now: then it was reused.
    const other = beat({ boot: "another-boot", heartbeat: now })
    expect(ownerLiveness(owner, beat({ heartbeat: now - STALE_MS - 1 }), us([100]), [other])).toEqual({
      alive: false,
      why: "pid-reused",
    })
  })

  it("the heartbeat's age on another host: alive up to STALE_MS, gone one millisecond after; one from the future is fresh", () => {
    const there = { ...owner, host: "there" }
    expect(ownerLiveness(there, beat({ host: "there", heartbeat: now - STALE_MS }), us()).alive).toBe(true)
    expect(ownerLiveness(there, beat({ host: "there", heartbeat: now - STALE_MS - 1 }), us()).alive).toBe(false)
    expect(ownerLiveness(there, beat({ host: "there", heartbeat: now + 5_000 }), us()).alive).toBe(true)
    // A stale heartbeat of another boot id does not take the pid away from a live owner without a file.
    const old = beat({ boot: "another-boot", heartbeat: now - STALE_MS - 1 })
    expect(ownerLiveness(owner, undefined, us([100]), [old])).toEqual({ alive: true, why: "pid-runs" })
  })

  it("a released heartbeat is gone at once (an instance disposed, a clean done), even this very instance's", () => {
    expect(ownerLiveness(owner, beat({ released: true }), us([100]))).toEqual({ alive: false, why: "released" })
    const mine = beat({ pid: 1, boot: "our-boot", released: true })
    expect(beatLiveness(mine, us([1]))).toEqual({ alive: false, why: "released" })
  })

  it("a heartbeat of another boot id than the owner's is not its heartbeat", () => {
    expect(ownerLiveness(owner, beat({ boot: "someone-else" }), us([]))).toEqual({ alive: false, why: "pid-gone" })
  })
})
