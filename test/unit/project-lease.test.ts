// The project's lease: the pure rule (src/owner/lease-rule.ts) and the files (src/owner/project-lease.ts).
// One holder at a time, also when two processes look at once; a holder that stops beating or whose
// process is gone is taken over; a released lease is taken at the next look.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { STALE_MS, type Heartbeat } from "../../src/owner/heartbeat.js"
import { decideLease, type LeaseEntry } from "../../src/owner/lease-rule.js"
import { STATE_DIR } from "../../src/project/own-files.js"
import { LEASE_DIR, ProjectLease } from "../../src/owner/project-lease.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const A = { pid: 100, host: "h", boot: "boot-a" }
const B = { pid: 200, host: "h", boot: "boot-b" }
const beat = (who: typeof A, heartbeat: number, extra: Partial<Heartbeat> = {}): Heartbeat => ({
  ...who,
  heartbeat,
  ...extra,
})
const entry = (seq: number, record: Heartbeat | undefined, writtenAt = 0): LeaseEntry => ({ seq, record, writtenAt })
const fresh = (now: number) => (r: Heartbeat) => !r.released && now - r.heartbeat <= STALE_MS

describe("the lease rule", () => {
  it("no lease yet: take number 1", () => {
    expect(decideLease([], A, 0, fresh(0), STALE_MS)).toEqual({ kind: "take", seq: 1 })
  })

  it("the highest number is the holder: its own is beaten, older numbers go", () => {
    expect(decideLease([entry(3, beat(A, 0)), entry(2, beat(B, 0))], A, 1_000, fresh(1_000), STALE_MS)).toEqual({
      kind: "mine",
      seq: 3,
      older: [2],
    })
    expect(decideLease([entry(3, beat(A, 0)), entry(2, beat(B, 0))], B, 1_000, fresh(1_000), STALE_MS)).toEqual({
      kind: "held",
      holder: beat(A, 0),
    })
  })

  it("a holder whose heartbeat stopped, that released it, or whose process is gone is taken over with the next number", () => {
    expect(decideLease([entry(3, beat(A, 0))], B, STALE_MS + 1, fresh(STALE_MS + 1), STALE_MS)).toEqual({
      kind: "take",
      seq: 4,
    })
    expect(decideLease([entry(3, beat(A, 0, { released: true }))], B, 1, fresh(1), STALE_MS)).toEqual({
      kind: "take",
      seq: 4,
    })
    expect(decideLease([entry(3, beat(A, 0))], B, 1, () => false, STALE_MS)).toEqual({ kind: "take", seq: 4 })
    // Its own released lease is not its own any more: taken again with a new number.
    expect(decideLease([entry(3, beat(A, 0, { released: true }))], A, 1, fresh(1), STALE_MS)).toEqual({
      kind: "take",
      seq: 4,
    })
  })

  it("a damaged lease file counts as held until it is as old as a stale heartbeat", () => {
    expect(decideLease([entry(2, undefined, 0)], A, STALE_MS, fresh(STALE_MS), STALE_MS)).toEqual({
      kind: "held",
      holder: undefined,
    })
    expect(decideLease([entry(2, undefined, 0)], A, STALE_MS + 1, fresh(STALE_MS + 1), STALE_MS)).toEqual({
      kind: "take",
      seq: 3,
    })
  })
})

/** A project with the plugin's state folder (the lease is only made where it is). */
function project(): string {
  const dir = tempDir("ralph-lease-")
  mkdirSync(join(dir, STATE_DIR), { recursive: true })
  return dir
}

describe("the lease on disk", () => {
  it("of two contenders that look at once, exactly one holds it — also over many rounds", async () => {
    const dir = project()
    let now = 1_000
    const alive = new Set([A.boot, B.boot])
    const isAlive = (r: Heartbeat) => alive.has(r.boot) && !r.released && now - r.heartbeat <= STALE_MS
    const a = new ProjectLease(dir, { ...A, what: "a" }, () => now, isAlive)
    const b = new ProjectLease(dir, { ...B, what: "b" }, () => now, isAlive)
    for (let round = 0; round < 20; round += 1) {
      const [va, vb] = await Promise.all([a.tick(), b.tick()])
      expect([va.kind, vb.kind].sort()).toEqual(["held", "mine"])
      expect([a.holds(), b.holds()].filter(Boolean)).toHaveLength(1)
      now += 1_000
    }
    // The holder beats; only its number is left.
    expect(readdirSync(join(dir, LEASE_DIR)).filter((n) => n.endsWith(".json"))).toHaveLength(1)
  })

  it("a holder that stops beating is taken over after STALE_MS, not before; the old holder then knows it lost it", async () => {
    const dir = project()
    let now = 0
    const isAlive = (r: Heartbeat) => now - r.heartbeat <= STALE_MS
    const a = new ProjectLease(dir, { ...A, what: "a" }, () => now, isAlive)
    const b = new ProjectLease(dir, { ...B, what: "b" }, () => now, isAlive)
    expect((await a.tick()).kind).toBe("mine")
    now = STALE_MS
    expect(await b.tick()).toEqual({ kind: "held", holder: { ...A, what: "a", heartbeat: 0 } })
    now = STALE_MS + 1
    expect((await b.tick()).kind).toBe("mine")
    expect((await a.tick()).kind).toBe("held")
    expect(a.holds()).toBe(false)
  })

  it("a holder stalled past STALE_MS does not hold the lease until its next look, so it fences what it would do meanwhile (issue 47)", async () => {
    const dir = project()
    let now = 0
    const isAlive = (r: Heartbeat) => now - r.heartbeat <= STALE_MS
    const a = new ProjectLease(dir, { ...A, what: "a" }, () => now, isAlive)
    const b = new ProjectLease(dir, { ...{ ...B, host: "other" }, what: "b" }, () => now, isAlive)
    expect((await a.tick()).kind).toBe("mine")
    now = STALE_MS - 1
    expect(a.holds()).toBe(true)
    // A stalls (no look); B, on another host, takes the lease over. A's timers come back before its next look:
    // a merge or settle it would start now asks holds() first, and is not started.
    now = STALE_MS + 1
    expect((await b.tick()).kind).toBe("mine")
    expect(a.holds()).toBe(false)
    expect(b.holds()).toBe(true)
    expect((await a.tick()).kind).toBe("held")
    // Stalled with nobody taking over: its next look finds the lease its own, and it holds it again.
    now += STALE_MS
    expect(b.holds()).toBe(false)
    expect((await b.tick()).kind).toBe("mine")
    expect(b.holds()).toBe(true)
  })

  it("a holder whose process died is taken over at the next look; a released lease too", async () => {
    const dir = project()
    const dead = new Set<string>()
    const isAlive = (r: Heartbeat) => !dead.has(r.boot) && !r.released
    const a = new ProjectLease(dir, { ...A, what: "a" }, () => 5, isAlive)
    const b = new ProjectLease(dir, { ...B, what: "b" }, () => 5, isAlive)
    await a.tick()
    expect((await b.tick()).kind).toBe("held")
    dead.add(A.boot)
    expect((await b.tick()).kind).toBe("mine")
    await b.release()
    expect(b.holds()).toBe(false)
    dead.delete(A.boot)
    expect((await a.tick()).kind).toBe("mine")
  })

  it("is not made in a folder without the plugin's state folder", async () => {
    const dir = tempDir("ralph-lease-")
    writeFileSync(join(dir, "README"), "a project the plugin never ran in\n")
    expect(await new ProjectLease(dir, { ...A, what: "a" }).tick()).toEqual({ kind: "no-folder" })
    expect(readdirSync(dir)).toEqual(["README"])
  })
})
