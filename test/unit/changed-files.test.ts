import { describe, expect, it } from "vitest"
import { changedSinceStart, DELETED } from "../../src/loop/changed-files.js"

describe("files changed since the loop began", () => {
  const start = { "notes.txt": "h-notes", "config.json": "h-config", "gone.txt": DELETED }

  it("leaves out the user's own changes from before the loop, as long as the loop leaves them alone", () => {
    const now = { "notes.txt": "h-notes", "config.json": "h-config", "gone.txt": DELETED, "new.ts": "h-new" }
    expect(changedSinceStart(start, [], now)).toEqual(["new.ts"])
  })

  it("counts a pre-existing change the loop edited further, reverted, or restored", () => {
    const now = { "notes.txt": "h-notes-2", "config.json": "h-config-at-head", "gone.txt": "h-back" }
    expect(changedSinceStart(start, [], now)).toEqual(["config.json", "gone.txt", "notes.txt"])
  })

  it("counts a file that was clean at the start, and one deleted since", () => {
    expect(changedSinceStart(start, [], { ...start, "src/a.ts": "h-a", "src/b.ts": DELETED })).toEqual([
      "src/a.ts",
      "src/b.ts",
    ])
  })

  it("counts what was committed since the start commit, even the user's change the loop committed unchanged", () => {
    expect(
      changedSinceStart(start, ["notes.txt", "src/c.ts"], {
        "config.json": "h-config",
        "gone.txt": DELETED,
        "notes.txt": "h-notes",
      }),
    ).toEqual(["notes.txt", "src/c.ts"])
  })

  it("without a snapshot (a loop saved by an older version) counts every changed file", () => {
    expect(changedSinceStart(undefined, ["a.ts"], { "b.ts": "h-b", "a.ts": "h-a" })).toEqual(["a.ts", "b.ts"])
  })
})
