// The loop's state on disk: changes that come together are written once, in their newest state,
// with every journal line; what a crash leaves behind (a torn journal line, a temp file of a write
// cut off before its rename) is cleaned up at the next load without a complaint.
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import * as atomic from "../../src/files/atomic.js"
import { JOURNAL_LINEAGE } from "../../src/store/journal.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { loop } from "./fixtures.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const project = () => tempDir("ralph-store-")
const journalLines = (store: LoopStore) => readFileSync(join(store.dir, "journal.jsonl"), "utf8").trimEnd().split("\n")

describe("LoopStore", () => {
  it("writes the changes of one moment once, in the newest state, and journals each of them", async () => {
    const store = new LoopStore(project())
    const l = loop({ phase: "running" })
    await store.save(l, "started", 1)
    const writes = vi.spyOn(atomic, "writeFileAtomic")
    // A decision, its restart and the next iteration: three changes in one synchronous run.
    l.phase = "deciding"
    void store.save(l, "decided", 2)
    l.phase = "restarting"
    void store.save(l, "restarting", 3)
    l.phase = "running"
    l.iteration = 2
    await store.save(l, "iteration", 4)
    expect(writes).toHaveBeenCalledTimes(1)
    writes.mockRestore()
    const state = JSON.parse(readFileSync(store.fileOf(l.id), "utf8"))
    expect(state.loop).toMatchObject({ phase: "running", iteration: 2 })
    expect(journalLines(store).map((line) => JSON.parse(line).event)).toEqual([
      "started",
      "decided",
      "restarting",
      "iteration",
    ])
  })

  it("keeps nothing in memory of an ended loop it loads (found by the soak: each restart kept every ended loop's state text)", async () => {
    const dir = project()
    const first = new LoopStore(dir)
    const ended = loop({
      id: "ses_ended0000000000000000001",
      sessionID: "ses_ended0000000000000000001",
      phase: "stopped",
      stopReason: "completed",
    })
    const live = loop({
      id: "ses_live00000000000000000001",
      sessionID: "ses_live00000000000000000001",
      phase: "running",
    })
    await Promise.all([first.save(ended, "stopped:completed", 1), first.save(live, "started", 1)])

    const store = new LoopStore(dir)
    const { loops } = await store.load(2)
    expect(loops.map((l) => l.id).sort()).toEqual([ended.id, live.id].sort())
    expect(store.held()).toEqual({ writes: 0, batches: 0, states: 1 })
  })

  it("keeps only the end of the last turn's text", async () => {
    const store = new LoopStore(project())
    const l = loop({ phase: "running", lastTurn: { texts: ["a".repeat(10_000), "the end"] } })
    await store.save(l, "decided", 1)
    const saved = JSON.parse(readFileSync(store.fileOf(l.id), "utf8")).loop.lastTurn.texts.join("\n")
    expect(saved.length).toBe(4000)
    expect(saved.endsWith("a\nthe end")).toBe(true)
  })

  it("drops a journal line torn by a crash, and the temp file of a write cut off before its rename", async () => {
    const dir = project()
    const first = new LoopStore(dir)
    const l = loop({ phase: "running" })
    await first.save(l, "started", 1)
    appendFileSync(join(first.dir, "journal.jsonl"), '{"at":"2026-11-22T00:00:00.000Z","event":"deci')
    const temp = join(first.dir, "loops", `.${l.id}.json.4242.0badc0de.tmp`)
    writeFileSync(temp, "{ half a state")

    const store = new LoopStore(dir)
    const { loops, problems } = await store.load(5)
    expect(problems).toEqual([])
    expect(loops.map((x) => x.id)).toEqual([l.id])
    expect(readdirSync(join(store.dir, "loops"))).toEqual([`${l.id}.json`])
    await store.save(loops[0]!, "resumed", 6)
    expect(journalLines(store).map((line) => JSON.parse(line).event)).toEqual(["started", "resumed"])
  })

  it("journals the newest earlier sessions only, so a line does not grow with the loop; the state file keeps them all", async () => {
    // Found by the soak: at iteration 300 of a recreate loop each journal line carried 300 session ids.
    const dir = project()
    const store = new LoopStore(dir)
    const sessions = (n: number) => Array.from({ length: n }, (_, i) => `ses_${String(i).padStart(26, "0")}`)
    const short = loop({ id: "ses_short", phase: "running", lineage: sessions(JOURNAL_LINEAGE) })
    const long = loop({ id: "ses_longer", phase: "running", lineage: sessions(300) })
    await store.save(short, "iteration", 1)
    await store.save(long, "iteration", 2)
    const [shortLine, longLine] = journalLines(store)
    expect(JSON.parse(longLine!).loop.lineage).toEqual(sessions(300).slice(-JOURNAL_LINEAGE))
    expect(longLine!.length - shortLine!.length).toBe("ses_longer".length - "ses_short".length)
    expect(JSON.parse(readFileSync(store.fileOf(long.id), "utf8")).loop.lineage).toHaveLength(300)

    writeFileSync(store.fileOf(long.id), "{ broken")
    const { loops, rebuilt } = await new LoopStore(dir).load(3)
    expect(rebuilt).toEqual([long.id])
    expect(loops.find((l) => l.id === long.id)?.lineage).toEqual(sessions(300).slice(-JOURNAL_LINEAGE))
  })

  describe("journal rotation", () => {
    const limits = { maxBytes: 8_000, kept: 3 }
    const journals = (store: LoopStore) =>
      readdirSync(store.dir)
        .filter((n) => n.startsWith("journal"))
        .sort()
    const events = (text: string) =>
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { event: string; loop: { id: string; iteration: number } })

    /** `count` iterations of loop a (three journal lines each), loop b started once and left paused, loop c ended. */
    async function history(store: LoopStore, count: number) {
      const a = loop({ id: "loop_a", phase: "running" })
      const b = loop({ id: "loop_b", phase: "paused" })
      const c = loop({ id: "loop_c", phase: "stopped" })
      await store.save(b, "paused", 1)
      await store.save(c, "stopped", 2)
      for (let i = 1; i <= count; i += 1) {
        a.iteration = i
        await store.save(a, "decided", 10 + 3 * i)
        await store.save(a, "restarting", 11 + 3 * i)
        await store.save(a, "iteration", 12 + 3 * i)
      }
      return { a, b, c }
    }

    it("rotates journal.jsonl past its size, keeps a bounded number of old journals, and loses no line at a rotation", async () => {
      const store = new LoopStore(project(), undefined, { maxBytes: limits.maxBytes, kept: 100 })
      await history(store, 60)
      const names = journals(store)
      expect(names.length).toBeGreaterThan(3)
      for (const name of names) expect(readFileSync(join(store.dir, name)).length).toBeLessThanOrEqual(limits.maxBytes)
      expect(names.at(-1)).toBe("journal.jsonl")
      for (const name of names.slice(0, -1)) expect(name).toMatch(/^journal-1970-01-01T00-00-00-\d{3}Z\.jsonl$/)
      // Every line written is in exactly one journal, in order, once the lines carried to the top of
      // each new journal (ones the journal before it holds) are set aside.
      const texts = names.map((name) => readFileSync(join(store.dir, name), "utf8").trimEnd().split("\n"))
      const written = texts.flatMap((lines, n) => {
        const before = new Set(texts[n - 1] ?? [])
        const carried = lines.findIndex((line) => !before.has(line))
        return lines.slice(carried)
      })
      const expected = ["loop_b paused 1", "loop_c stopped 1"]
      for (let i = 1; i <= 60; i += 1)
        expected.push(`loop_a decided ${i}`, `loop_a restarting ${i}`, `loop_a iteration ${i}`)
      expect(written.map((line) => events(line)[0]!).map((e) => `${e.loop.id} ${e.event} ${e.loop.iteration}`)).toEqual(
        expected,
      )

      const pruned = new LoopStore(project(), undefined, limits)
      await history(pruned, 60)
      expect(journals(pruned).length).toBe(limits.kept + 1)
    })

    it("starts each new journal with the last line of every loop not ended, so the newest journal alone can rebuild them", async () => {
      const dir = project()
      const store = new LoopStore(dir, undefined, limits)
      const { b } = await history(store, 60)
      const newest = events(readFileSync(join(store.dir, "journal.jsonl"), "utf8"))
      expect(newest.filter((e) => e.loop.id === "loop_b")).toHaveLength(1)
      expect(newest.some((e) => e.loop.id === "loop_c")).toBe(false)

      // loop b's state file is damaged long after its last change: rebuilt from the newest journal.
      writeFileSync(store.fileOf(b.id), "{ broken")
      const { loops, rebuilt, problems } = await new LoopStore(dir, undefined, limits).load(10_000)
      expect(rebuilt).toEqual([b.id])
      expect(loops.find((l) => l.id === b.id)?.phase).toBe("paused")
      expect(problems.map((p) => p.message).join("\n")).toMatch(/rebuilt from the journal/)
    })
  })
})
