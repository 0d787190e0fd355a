// Which checkpoint /ralph-rollback restores, the numbers checkpoints get, and what a rollback says.
import { describe, expect, it } from "vitest"
import {
  checkpointNumber,
  checkpointsLine,
  iterationOf,
  checkpointSubject,
  rollbackSummary,
  rollbackTarget,
  type Checkpoint,
} from "../../src/checkpoints/checkpoints.js"

const cp = (number: number, iteration: number | undefined = number): Checkpoint => ({
  ref: `refs/ralph/ses_a/${number}`,
  number,
  iteration,
  commit: `c${number}`,
  at: 0,
})
/** A rollback's save of the work tree: it holds no iteration. */
const save = (number: number): Checkpoint => ({ ...cp(number), iteration: undefined })
const four = [cp(0), cp(1), cp(2), cp(3)]

describe("the checkpoint a rollback restores", () => {
  it("N, the start with --to-start, or by default the one before the last", () => {
    expect(rollbackTarget(four, "1")).toEqual({ ok: true, checkpoint: cp(1) })
    expect(rollbackTarget(four, " --to-start ")).toEqual({ ok: true, checkpoint: cp(0) })
    expect(rollbackTarget(four, "")).toEqual({ ok: true, checkpoint: cp(2) })
  })

  it("says what is wrong: no checkpoints, no such number, not a number, nothing before the only one", () => {
    expect(rollbackTarget([], "")).toMatchObject({ ok: false, message: expect.stringContaining("no checkpoints") })
    expect(rollbackTarget(four, "7")).toEqual({
      ok: false,
      message: "There is no checkpoint 7; this loop has 0, 1, 2, 3.",
    })
    expect(rollbackTarget(four, "two")).toMatchObject({
      ok: false,
      message: expect.stringContaining("Usage: /ralph-rollback [N | --to-start]"),
    })
    expect(rollbackTarget([cp(0)], "")).toEqual({
      ok: false,
      message: "There is only checkpoint 0: nothing before it to go back to.",
    })
  })
})

describe("checkpoint numbers", () => {
  it("are the iterations; an iteration decided again keeps its number; after a rollback's save they run on", () => {
    expect(checkpointNumber([], 0)).toBe(0)
    expect(checkpointNumber([cp(0)], 1)).toBe(1)
    expect(checkpointNumber([cp(0), cp(1)], 1)).toBe(1)
    expect(checkpointNumber([...four, save(4)], 4)).toBe(5)
    expect(checkpointNumber([...four, save(4), cp(5, 4)], 5)).toBe(6)
  })

  it("the commit subject says what a checkpoint holds", () => {
    expect(iterationOf(checkpointSubject("ses_a", 3))).toBe(3)
    expect(iterationOf(checkpointSubject("ses_a", undefined))).toBeUndefined()
  })
})

describe("what a rollback says", () => {
  it("files restored, added back, removed, and how to undo it", () => {
    const text = rollbackSummary(1, 4, [
      { status: "M", path: "work.txt" },
      { status: "A", path: "old.txt" },
      { status: "D", path: "extra.txt" },
    ])
    expect(text).toBe(
      "The work tree is back at checkpoint 1.\nRestored (1): work.txt\nAdded back (1): old.txt\nRemoved (1): extra.txt\nWhat it was before is checkpoint 4: /ralph-rollback 4 undoes this. The loop is paused; /ralph-resume goes on.",
    )
    expect(rollbackSummary(2, 5, [])).toContain("already was as checkpoint 2")
    expect(checkpointsLine("ses_a", four)).toBe(
      "Checkpoints: 4 (0, 1, 2, 3) on refs/ralph/ses_a/ — /ralph-rollback [N | --to-start] puts the work tree back",
    )
    expect(checkpointsLine("ses_a", [])).toBe("")
  })
})
