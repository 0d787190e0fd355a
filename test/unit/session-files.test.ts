import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { sessionDir, writeSummary } from "../../src/store/session-files.js"
import { loop } from "./fixtures.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

describe("session files", () => {
  it("writes ralph_summary.md at <summaryPath>/<sessionID>/ with the task, iteration and summary", async () => {
    const directory = tempDir("ralph-files-")
    const file = await writeSummary(directory, {
      loop: loop({ task: "make the tests pass" }),
      sessionID: "ses_abc",
      nextIteration: 2,
      summary: "Wrote a.ts; b.ts is left.",
      source: "model",
      at: new Date("2026-11-22T10:00:00Z"),
    })
    expect(file).toBe(join(directory, ".opencode/sessions/ses_abc/ralph_summary.md"))
    const text = readFileSync(file, "utf8")
    expect(text).toContain("make the tests pass")
    expect(text).toContain("Iteration: 1 of 4 ended; iteration 2 starts")
    expect(text).toContain("2026-11-22T10:00:00.000Z")
    expect(text).toContain("Wrote a.ts; b.ts is left.")
    // Atomic: no temp file left behind.
    expect(readdirSync(join(directory, ".opencode/sessions/ses_abc"))).toEqual(["ralph_summary.md"])
  })

  it("refuses session ids and paths that would leave the project", () => {
    expect(() => sessionDir("/p", ".opencode/sessions", "../../etc")).toThrow(/unsafe session id/)
    expect(() => sessionDir("/p", ".opencode/sessions", "a/b")).toThrow(/unsafe session id/)
    expect(() => sessionDir("/p", "../x", "ses_1")).toThrow(/outside the project/)
    expect(sessionDir("/p", ".opencode/sessions", "ses_1")).toBe("/p/.opencode/sessions/ses_1")
  })
})
