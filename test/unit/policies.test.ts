import { describe, expect, it } from "vitest"
import { backoffDelayMs } from "../../src/loop/backoff.js"
import { blockedUntil, recordCall, type CallWindow } from "../../src/loop/call-window.js"
import { classify, errorFingerprint } from "../../src/loop/classify.js"
import { measureProgress, outputHash } from "../../src/loop/progress.js"
import { parseStatusBlock } from "../../src/loop/status-block.js"
import { emptyTurnEvents } from "../../src/loop/turn-events.js"

describe("call window", () => {
  const limits = { maxCallsPerHour: 2, rateLimitWindowMinutes: 60 }
  it("counts calls in a window that starts at the first call and resets after it (clock edges)", () => {
    let w: CallWindow = { count: 0 }
    expect(blockedUntil(w, limits, 0)).toBeUndefined()
    w = recordCall(w, limits, 1_000)
    w = recordCall(w, limits, 2_000)
    expect(w).toEqual({ startedAt: 1_000, count: 2 })
    expect(blockedUntil(w, limits, 3_000)).toBe(1_000 + 3_600_000)
    expect(blockedUntil(w, limits, 1_000 + 3_600_000 - 1)).toBe(1_000 + 3_600_000)
    expect(blockedUntil(w, limits, 1_000 + 3_600_000)).toBeUndefined()
    expect(recordCall(w, limits, 1_000 + 3_600_000)).toEqual({ startedAt: 1_000 + 3_600_000, count: 1 })
  })
  it("asks for room for several calls at once", () => {
    const w = recordCall({ count: 0 }, limits, 0)
    expect(blockedUntil(w, limits, 1, 1)).toBeUndefined()
    expect(blockedUntil(w, limits, 1, 2)).toBe(3_600_000)
  })
})

describe("back-off", () => {
  const limits = { backoffBaseSeconds: 30, backoffMaxMinutes: 30 }
  it("uses the provider's reset time when it gives one", () => {
    expect(backoffDelayMs({ message: "x", headers: { "Retry-After": "12" } }, 0, limits, 0)).toBe(12_000)
    expect(backoffDelayMs({ message: "x", headers: { "retry-after-ms": "1500" } }, 0, limits, 0)).toBe(1_500)
    expect(
      backoffDelayMs({ message: "x", headers: { "retry-after": new Date(90_000).toUTCString() } }, 0, limits, 0),
    ).toBe(90_000)
    expect(backoffDelayMs({ message: "x", headers: { "x-ratelimit-reset-requests": "1m30s" } }, 0, limits, 0)).toBe(
      90_000,
    )
    expect(backoffDelayMs({ message: "Rate limit reached. Please try again in 20s." }, 0, limits, 0)).toBe(20_000)
  })
  it("takes the latest of the resets it names", () => {
    expect(
      backoffDelayMs(
        { message: "Service unavailable, try again in 45s", headers: { "retry-after": "5" } },
        0,
        limits,
        0,
      ),
    ).toBe(45_000)
  })
  it("otherwise doubles from the base, capped", () => {
    expect([0, 1, 2].map((a) => backoffDelayMs({ message: "Overloaded" }, a, limits, 0))).toEqual([
      30_000, 60_000, 120_000,
    ])
    expect(backoffDelayMs({ message: "Overloaded" }, 30, limits, 0)).toBe(30 * 60_000)
    expect(backoffDelayMs({ message: "x", headers: { "retry-after": "99999" } }, 0, limits, 0)).toBe(30 * 60_000)
  })
})

describe("classify and fingerprints", () => {
  it("reads a session.error seen during the turn when the message has none", () => {
    const events = {
      ...emptyTurnEvents(),
      errors: [{ name: "APIError", message: "Too Many Requests", statusCode: 429 }],
    }
    expect(classify({ texts: [] }, events)).toMatchObject({ kind: "usage-limit" })
    expect(classify({ texts: [] }, { ...emptyTurnEvents(), compacted: true })).toMatchObject({ kind: "overflow" })
  })
  it("folds ids, numbers, paths and quotes so the same error matches", () => {
    const a = errorFingerprint({
      name: "APIError",
      statusCode: 400,
      message: "Tool 'write' failed at /tmp/x/a.ts line 12 (req_abc123)",
    })
    const b = errorFingerprint({
      name: "APIError",
      statusCode: 400,
      message: "Tool 'edit' failed at /home/y/b.ts line 99 (req_zz9)",
    })
    expect(a).toBe(b)
    expect(a).not.toBe(errorFingerprint({ name: "APIError", statusCode: 500, message: "Tool 'write' failed" }))
  })
})

describe("progress", () => {
  const base = { todosCompleted: 0, recentOutputs: [] as string[], workTree: "t0" }
  const sample = (workTree: string | undefined, todosCompleted = 0) => ({
    workTree,
    todosCompleted,
    openTodos: [],
    sessionID: "s",
  })
  it("a changed work tree or checks with fewer issues is progress", () => {
    expect(measureProgress(base, sample("t1"), []).progress).toBe(true)
    expect(measureProgress(base, sample("t0"), [], true).progress).toBe(true)
  })
  it("a todo the model marks completed is not progress by itself: only beside a work-tree change or better checks", () => {
    const before = { ...base, todosSession: "s" }
    expect(measureProgress(before, sample("t0", 1), ["ticked a todo"]).progress).toBe(false)
    expect(measureProgress(before, sample("t1", 1), []).progress).toBe(true)
    expect(measureProgress(before, sample("t0", 1), [], true).progress).toBe(true)
    expect(measureProgress(before, sample("t0", 1), []).next.todosCompleted).toBe(1)
  })
  it("words are not progress: new wording with nothing changed is none", () => {
    expect(measureProgress(base, sample("t0"), ["a reply worded like no other before"]).progress).toBe(false)
  })
  it("where the work tree cannot be seen (no git), a reply not given before counts; the same one with other numbers does not", () => {
    const blind = { ...base, workTree: undefined }
    const first = measureProgress(blind, sample(undefined), ["Working on step 3"])
    expect(first.progress).toBe(true)
    expect(measureProgress(first.next, sample(undefined), ["working on  step 4"]).progress).toBe(false)
  })
  it("whitespace of any kind and length counts as one space; words still differ", () => {
    expect(outputHash(["a\tb \n\n c\r\nd  e"])).toBe(outputHash(["a b c d e"]))
    expect(outputHash(["  a b  "])).toBe(outputHash(["a b"]))
    expect(outputHash(["a b"])).not.toBe(outputHash(["ab"]))
    expect(outputHash([" \n\t "])).toBeUndefined()
  })
})

describe("RALPH_STATUS block", () => {
  it("reads every field", () => {
    const text = `Done for now.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 2\nFILES_MODIFIED: 3\nTESTS_STATUS: FAILING\nWORK_TYPE: TESTING\nEXIT_SIGNAL: false\nRECOMMENDATION: fix the parser test\n---END_RALPH_STATUS---`
    expect(parseStatusBlock(text)).toEqual({
      status: "IN_PROGRESS",
      tasksCompleted: 2,
      filesModified: 3,
      testsStatus: "FAILING",
      workType: "TESTING",
      exitSignal: false,
      recommendation: "fix the parser test",
    })
  })
  it("is tolerant: case, markdown, bullets, missing end marker and fields; the last block wins", () => {
    const text =
      "---RALPH_STATUS---\nSTATUS: BLOCKED\n---END_RALPH_STATUS---\nlater:\n--- ralph_status ---\n- **Status**: complete\n* exit_signal: TRUE\n"
    expect(parseStatusBlock(text)).toEqual({ status: "COMPLETE", exitSignal: true })
    expect(parseStatusBlock("no block here")).toBeUndefined()
  })
  it("without end markers the last block still wins, and only its own lines are read", () => {
    const text = "---RALPH_STATUS---\nSTATUS: BLOCKED\nmore words\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\n"
    expect(parseStatusBlock(text)).toEqual({ status: "IN_PROGRESS" })
    // A block is short: a field far below its start marker is not part of it.
    expect(
      parseStatusBlock(`---RALPH_STATUS---\nSTATUS: IN_PROGRESS\n${"x".repeat(10_000)}\nEXIT_SIGNAL: true\n`),
    ).toEqual({ status: "IN_PROGRESS" })
  })
})
