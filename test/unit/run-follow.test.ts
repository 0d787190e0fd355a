import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { JournalTail, stateAsOf } from "../../src/cli/run/follow.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import { newLoop } from "../../src/loop/loop.js"
import { journalLine } from "../../src/store/journal.js"
import type { SavedLoop } from "../../src/store/saved-loops.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const { activation: _activation, ...settings } = DEFAULT_SETTINGS
const T = Date.parse("2026-11-25T10:00:00Z")
const loop = (id: string) => newLoop(id, "a task", settings, T)

describe("following a loop's files", () => {
  it("reads the journal from where the run began, complete lines only, and on across a rotation", async () => {
    const project = tempDir("ralph-run-follow-")
    const dir = join(project, ".opencode/ralph-loop")
    mkdirSync(dir, { recursive: true })
    const journal = join(dir, "journal.jsonl")
    writeFileSync(journal, journalLine(loop("ses_old"), "started", T))
    const tail = await JournalTail.fromEnd(project)
    expect(await tail.read()).toEqual([])
    const started = journalLine(loop("ses_a"), "started", T + 1)
    const decided = journalLine(loop("ses_a"), "decided", T + 2)
    // The second line is still being appended: only the first is read now.
    appendFileSync(journal, started + decided.slice(0, 20))
    expect((await tail.read()).map((e) => [e.loop.id, e.event])).toEqual([["ses_a", "started"]])
    appendFileSync(journal, decided.slice(20))
    // Rotated: the old journal becomes journal-<time>.jsonl; the new one starts with the open loops' last lines.
    const prompt = journalLine(loop("ses_a"), "prompt", T + 3)
    appendFileSync(journal, prompt)
    renameSync(journal, join(dir, "journal-2026-11-25T10-00-00-000Z.jsonl"))
    writeFileSync(journal, prompt + journalLine(loop("ses_a"), "stopped:completed", T + 4))
    expect((await tail.read()).map((e) => e.event)).toEqual(["decided", "prompt", "prompt", "stopped:completed"])
  })

  it("the state file as of a journal line: read again while it is older than the line (the two are written side by side)", async () => {
    const stale: SavedLoop = { loop: loop("ses_a"), savedAt: T }
    const fresh: SavedLoop = { loop: { ...loop("ses_a"), phase: "paused", detail: "blocked" }, savedAt: T + 10 }
    const reads = [undefined, stale, fresh]
    let calls = 0
    const read = async () => reads[Math.min(calls++, reads.length - 1)]
    expect(await stateAsOf(read, T + 10, 20, 1)).toBe(fresh)
    expect(calls).toBe(3)
    // A file that never catches up: the newest read, after a bounded number of tries.
    let slow = 0
    const slowRead = async () => {
      slow++
      return stale
    }
    expect(await stateAsOf(slowRead, T + 10, 5, 1)).toBe(stale)
    expect(slow).toBe(6)
  })
})
