// The loop's state on disk: changes that come together are written once, in their newest state,
// with every journal line; what a crash leaves behind (a torn journal line, a temp file of a write
// cut off before its rename) is cleaned up at the next load without a complaint.
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import * as atomic from "../../src/store/atomic.js"
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
    expect(journalLines(store).map((line) => JSON.parse(line).event)).toEqual(["started", "decided", "restarting", "iteration"])
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
})
