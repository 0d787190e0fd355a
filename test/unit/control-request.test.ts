// The control channel's pure rules: what a request is, the order requests are acted on, which loop
// a request names, and what forgetting a memory entry takes out.
import { describe, expect, it } from "vitest"
import { newRequestId, parseRequest, requestIdOf, takenIdOf, waitingRequests } from "../../src/control/request.js"
import { whichLoop } from "../../src/control/which-loop.js"
import { entries, forget, parseMemory, serializeMemory } from "../../src/memory/memory-file.js"

const ID = "1700000000000-0123abcd"

describe("a control request", () => {
  it("is read when it is one: a known verb, its own file's id, no other field", () => {
    expect(
      parseRequest(ID, JSON.stringify({ id: ID, verb: "pause", loop: "ses_1", from: "ralph-loop pause" })),
    ).toEqual({ ok: true, request: { id: ID, verb: "pause", loop: "ses_1", from: "ralph-loop pause" } })
    expect(parseRequest(ID, JSON.stringify({ id: ID, verb: "rollback", checkpoint: "start" })).ok).toBe(true)
    expect(parseRequest(ID, JSON.stringify({ id: ID, verb: "rollback", checkpoint: 3 })).ok).toBe(true)
  })

  it("is refused with the reason otherwise", () => {
    expect(parseRequest(ID, "{not json")).toEqual({ ok: false, reason: "the request is not JSON" })
    expect(parseRequest(ID, JSON.stringify({ id: ID, verb: "delete-everything" }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("verb"),
    })
    expect(parseRequest(ID, JSON.stringify({ id: ID, verb: "pause", shell: "rm -rf /" }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("shell"),
    })
    expect(parseRequest(ID, JSON.stringify({ id: ID, verb: "rollback", checkpoint: -1 })).ok).toBe(false)
    expect(parseRequest(ID, JSON.stringify({ id: ID, verb: "hint", text: "x".repeat(4_001) })).ok).toBe(false)
    expect(parseRequest(ID, JSON.stringify({ id: "1700000000001-0123abcd", verb: "pause" }))).toEqual({
      ok: false,
      reason: "the request's id 1700000000001-0123abcd is not its file's (1700000000000-0123abcd)",
    })
  })

  it("ids sort by the time they were made", () => {
    const ids = [
      newRequestId(1_700_000_000_999, "ffffffff"),
      newRequestId(1_700_000_001_000, "00000000"),
      newRequestId(999, "aaaaaaaa"),
    ]
    expect([...ids].sort()).toEqual([ids[2], ids[0], ids[1]])
    expect(ids[2]).toBe("0000000000999-aaaaaaaa")
  })

  it("waiting requests are acted on in their names' order; taken ones, results, temp files and strangers are not waiting", () => {
    const later = "1700000000002-00000000"
    const earlier = "1700000000001-ffffffff"
    const names = [
      `${later}.request.json`,
      `${earlier}.request.json`,
      `${ID}.taken.json`,
      `${ID}.result.json`,
      `.${later}.request.json.12.abcdef01.tmp`,
      "notes.request.json",
      "x.json",
    ]
    expect(waitingRequests(names)).toEqual([earlier, later])
    expect(requestIdOf(`${ID}.taken.json`)).toBeUndefined()
    expect(takenIdOf(`${ID}.taken.json`)).toEqual({ id: ID, taker: undefined })
    expect(takenIdOf(`${ID}.0b5e-77.taken.json`)).toEqual({ id: ID, taker: "0b5e-77" })
    expect(takenIdOf(`${ID}..taken.json`)).toBeUndefined()
    expect(takenIdOf("../x.taken.json")).toBeUndefined()
  })
})

describe("which loop a request means", () => {
  const loops = [{ id: "ses_abc1" }, { id: "ses_abd2" }]

  it("none named: the one live loop, else the choices", () => {
    expect(whichLoop([loops[0]!], undefined)).toEqual({ ok: true, loop: loops[0] })
    expect(whichLoop([], undefined)).toEqual({ ok: false, reason: "There is no live Ralph loop in this project." })
    expect(whichLoop(loops, undefined)).toEqual({
      ok: false,
      reason: "2 Ralph loops are live in this project; name one: ses_abc1, ses_abd2.",
    })
  })

  it("named: its id, or the start of one id only", () => {
    expect(whichLoop(loops, "ses_abd2")).toEqual({ ok: true, loop: loops[1] })
    expect(whichLoop(loops, "ses_abc")).toEqual({ ok: true, loop: loops[0] })
    expect(whichLoop(loops, "ses_ab")).toEqual({
      ok: false,
      reason: "ses_ab is the start of 2 loops' ids; give more of it: ses_abc1, ses_abd2.",
    })
    expect(whichLoop(loops, "ses_x")).toEqual({
      ok: false,
      reason: "No live Ralph loop here is ses_x (live: ses_abc1, ses_abd2).",
    })
  })

  it("an exact id wins over a longer id it starts", () => {
    const both = [{ id: "ses_a-2" }, { id: "ses_a" }]
    expect(whichLoop(both, "ses_a")).toEqual({ ok: true, loop: both[1] })
  })
})

describe("forgetting a memory entry", () => {
  const memory = parseMemory(
    [
      "# Ralph memory",
      "",
      "## Priority",
      "",
      "- 2024-01-01 · command · use pnpm, not npm",
      "",
      "## Working memory",
      "",
      "- 2024-01-02 · remember · tests live in test/unit",
      "- 2024-01-03 · lesson · tsc fails on src/a.ts",
      "",
      "## Manual",
      "",
      "use pnpm by hand",
      "",
    ].join("\n"),
  )

  it("takes out the entry with that text, whatever its case and spaces", () => {
    const { memory: after, removed } = forget(memory, "  Use PNPM,  not npm ")
    expect(removed.map((e) => e.text)).toEqual(["use pnpm, not npm"])
    expect(entries(after, "priority")).toEqual([])
    expect(entries(after, "working")).toHaveLength(2)
    // The Manual section is never touched.
    expect(serializeMemory(after)).toContain("## Manual\n\nuse pnpm by hand\n")
  })

  it("takes out the one entry that contains the text; part of several, or of none: nothing", () => {
    expect(forget(memory, "test/unit").removed.map((e) => e.text)).toEqual(["tests live in test/unit"])
    const several = forget(memory, "s")
    expect(several.removed).toEqual([])
    expect(several.candidates).toHaveLength(3)
    expect(serializeMemory(several.memory)).toBe(serializeMemory(memory))
    expect(forget(memory, "yarn")).toEqual({ memory, removed: [], candidates: [] })
    expect(forget(memory, "  ").removed).toEqual([])
  })
})
