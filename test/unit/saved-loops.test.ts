// The loops on disk for /ralph-status: the newest files only, ended loops included, never a throw.
import { mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { LoopStore, stateText } from "../../src/store/loop-store.js"
import { readNewestLoops } from "../../src/store/saved-loops.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"

const tempDir = tempDirs()

/** Writes `ses_<n>`'s state file as saved at minute n, with its file dated so too. */
function writeLoop(dir: string, n: number, overrides: Parameters<typeof loop>[0] = {}): void {
  const file = join(dir, `ses_${n}.json`)
  writeFileSync(
    file,
    stateText(
      loop({ id: `ses_${n}`, sessionID: `ses_${n}`, phase: "stopped", stopReason: "completed", ...overrides }),
      n * 60_000,
    ),
  )
  utimesSync(file, n * 60, n * 60)
}

describe("readNewestLoops", () => {
  it("reads only the newest files, newest first, with when each was saved", async () => {
    const dir = tempDir("ralph-saved-")
    for (const n of [3, 1, 5, 2, 4]) writeLoop(dir, n)
    const newest = await readNewestLoops(dir, 3)
    expect(newest.map((s) => s.loop.id)).toEqual(["ses_5", "ses_4", "ses_3"])
    expect(newest.map((s) => s.savedAt)).toEqual([5 * 60_000, 4 * 60_000, 3 * 60_000])
    expect(newest[0]?.loop.stopReason).toBe("completed")
  })

  it("leaves out what is not a loop's state and never throws", async () => {
    const dir = tempDir("ralph-saved-")
    writeLoop(dir, 1)
    writeFileSync(join(dir, "ses_2.json"), '{ "schemaVersion": 1, "loop": { "iteration": "lots" ')
    writeFileSync(join(dir, "ses_3.json.corrupt-2025"), "{}")
    mkdirSync(join(dir, "folder.json"))
    expect((await readNewestLoops(dir, 10)).map((s) => s.loop.id)).toEqual(["ses_1"])
    expect(await readNewestLoops(join(dir, "missing"), 10)).toEqual([])
  })

  it("LoopStore.newest sees a stop made just before it (the pending write is waited for)", async () => {
    const store = new LoopStore(tempDir("ralph-saved-project-"))
    const l = loop({ phase: "running" })
    await store.save(l, "started", 1)
    l.phase = "stopped"
    l.stopReason = "cancelled"
    void store.save(l, "stopped:cancelled", 2)
    const [saved] = await store.newest(10)
    expect(saved?.loop.phase).toBe("stopped")
    expect(saved?.loop.stopReason).toBe("cancelled")
  })
})
