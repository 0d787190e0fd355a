// The progress log's file: its entries are appended beside the loop's next prompt (a job of their
// own), so a read asked after an append must see it — the next prompt's excerpt, a handoff.
import { describe, expect, it } from "vitest"
import { ProgressFile } from "../../src/store/progress-file.js"
import type { ProgressEntry } from "../../src/store/progress-entry.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

function entry(iteration: number): ProgressEntry {
  return {
    at: Date.UTC(2025, 0, 6, 9, 30, 5),
    loopID: "ses_abc",
    task: "build the shop",
    iteration,
    story: undefined,
    storyDone: undefined,
    decision: { type: "restart", fresh: false },
    files: [`src/f${iteration}.ts`],
    failingChecks: [],
    checksRanAt: undefined,
    learnings: [],
  }
}

describe("the progress file", () => {
  it("a read asked while appends are under way sees every entry asked before it", async () => {
    const file = new ProgressFile(tempDir("ralph-progress-"))
    const appends = [1, 2, 3].map((i) => file.append(entry(i)))
    const read = await file.read()
    for (const i of [1, 2, 3]) expect(read).toContain(`src/f${i}.ts`)
    await Promise.all(appends)
  })

  it("an append that fails does not hold up the reads and appends after it", async () => {
    const file = new ProgressFile(tempDir("ralph-progress-"))
    const broken = { ...entry(1), at: Number.NaN }
    const failed = file.append(broken).then(
      () => "written",
      () => "failed",
    )
    await file.append(entry(2))
    expect(await failed).toBe("failed")
    expect(await file.read()).toContain("src/f2.ts")
  })
})
