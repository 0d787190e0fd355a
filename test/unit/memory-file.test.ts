import { describe, expect, it } from "vitest"
import {
  BrokenMemoryError,
  clearWorking,
  emptyMemory,
  entries,
  manualText,
  parseMemory,
  remember,
  serializeMemory,
  type MemoryFile,
} from "../../src/memory/memory-file.js"
import { hydrate } from "../../src/memory/relevance.js"
import { markUnverified, promoteStaged, stagedSource } from "../../src/memory/staging.js"

const MANUAL = "## Manual\n\nMy own notes.\n  - indented, *not* an entry\n\n```\n## Priority\n```\n"
const FILE = `# Ralph memory\n\n## Priority\n\n- 2026-11-01 · command · Use pnpm, never npm\n\n## Working memory\n\n- 2026-11-02 · lesson ×2 · check tsc failed on src/a.ts: TS2322 — fixed in iteration 3\n- a line I wrote by hand\n\n${MANUAL}`

describe("memory file", () => {
  it("reads the three sections, hand-written lines included, and writes them back as they were", () => {
    const memory = parseMemory(FILE)
    expect(entries(memory, "priority")).toEqual([
      { date: "2026-11-01", source: "command", count: 1, text: "Use pnpm, never npm" },
    ])
    expect(entries(memory, "working").map((e) => [e.source, e.count, e.text])).toEqual([
      ["lesson", 2, "check tsc failed on src/a.ts: TS2322 — fixed in iteration 3"],
      ["hand-written", 1, "a line I wrote by hand"],
    ])
    expect(serializeMemory(memory)).toBe(FILE)
  })

  it("the same text again is one entry with a count and the newer date, in whichever section holds it", () => {
    let memory = parseMemory(FILE)
    memory = remember(memory, "working", { text: "use  PNPM, never npm", source: "remember", date: "2026-11-23" }, 50)
    memory = remember(
      memory,
      "working",
      { text: "A new lesson\nover two lines", source: "remember", date: "2026-11-23" },
      50,
    )
    expect(entries(memory, "priority")).toEqual([
      { date: "2026-11-23", source: "command", count: 2, text: "Use pnpm, never npm" },
    ])
    expect(entries(memory, "working").at(-1)).toEqual({
      date: "2026-11-23",
      source: "remember",
      count: 1,
      text: "A new lesson over two lines",
    })
  })

  it("keeps the newest working entries beyond the limit; hand-written lines and priority stay", () => {
    let memory = parseMemory(FILE)
    for (let i = 1; i <= 4; i += 1)
      memory = remember(memory, "working", { text: `lesson ${i}`, source: "lesson", date: `2026-11-2${i}` }, 2)
    expect(entries(memory, "working").map((e) => e.text)).toEqual(["a line I wrote by hand", "lesson 3", "lesson 4"])
    expect(entries(memory, "priority")).toHaveLength(1)
  })

  it("clear empties the working memory and leaves priority and the manual section byte for byte", () => {
    const cleared = serializeMemory(clearWorking(parseMemory(FILE)))
    expect(cleared.endsWith(MANUAL)).toBe(true)
    expect(entries(parseMemory(cleared), "working")).toEqual([])
    expect(entries(parseMemory(cleared), "priority")).toHaveLength(1)
    expect(manualText(parseMemory(cleared))).toBe(MANUAL)
  })

  it("adds missing sections before the manual one; an empty file is a new memory", () => {
    const memory = remember(
      parseMemory("## Manual\nmine\n"),
      "priority",
      { text: "x", source: "command", date: "2026-11-23" },
      50,
    )
    expect(serializeMemory(memory)).toBe(
      "## Priority\n\n- 2026-11-23 · command · x\n\n## Working memory\n\n## Manual\nmine\n",
    )
    expect(serializeMemory(parseMemory(""))).toBe(serializeMemory(emptyMemory()))
  })

  it("is broken only when it is not a memory file at all", () => {
    expect(() => parseMemory("just some text\nwithout headings\n")).toThrow(BrokenMemoryError)
    expect(() => parseMemory("## Priority\n\n## Priority\n")).toThrow(/twice/)
    expect(() => parseMemory("## Priority\n\u0000\u0001")).toThrow(/binary/)
    expect(() => parseMemory("## working MEMORY\n- anything\n")).not.toThrow()
  })
})

describe("staging (seed 001): a loop's notes become memory only when it completes", () => {
  const staged = (memory: MemoryFile, loopID: string, text: string, section: "priority" | "working" = "working") =>
    remember(memory, "staging", { text, source: stagedSource(loopID, section), date: "2026-11-24" }, 50)

  it("staged notes sit under ## Staging, tagged with their loop, and are given to no loop", () => {
    const memory = staged(
      staged(emptyMemory(), "ses_a", "the cache lives in src/cache.ts"),
      "ses_a",
      "use pnpm",
      "priority",
    )
    const text = serializeMemory(memory)
    expect(text).toContain(
      "## Staging\n\n- 2026-11-24 · staged ses_a · the cache lives in src/cache.ts\n- 2026-11-24 · staged ses_a priority · use pnpm\n",
    )
    expect(text.indexOf("\n## Staging\n")).toBeLessThan(text.indexOf("\n## Manual\n"))
    expect(entries(parseMemory(text), "staging")).toHaveLength(2)
    expect(hydrate(memory, "fix src/cache.ts", ["src/cache.ts"], 2_000)).toEqual({
      priority: [],
      relevant: [],
      omitted: 0,
    })
  })

  it("a completed loop's notes move to Working memory or Priority; another loop's stay", () => {
    const memory = staged(
      staged(staged(emptyMemory(), "ses_a", "note a"), "ses_a", "rule a", "priority"),
      "ses_b",
      "note b",
    )
    const after = promoteStaged(memory, "ses_a", "2026-11-25", 50)
    expect(entries(after, "working").map((e) => [e.source, e.text, e.date])).toEqual([
      ["remember", "note a", "2026-11-25"],
    ])
    expect(entries(after, "priority").map((e) => e.text)).toEqual(["rule a"])
    expect(entries(after, "staging").map((e) => e.source)).toEqual(["staged ses_b"])
  })

  it("a loop that ends otherwise leaves its notes marked unverified, and they are never promoted later", () => {
    const memory = markUnverified(staged(emptyMemory(), "ses_a", "note a"), "ses_a")
    expect(serializeMemory(memory)).toContain("- 2026-11-24 · unverified ses_a · note a\n")
    expect(entries(promoteStaged(memory, "ses_a", "2026-11-25", 50), "working")).toEqual([])
  })
})

describe("a later entry about the same file supersedes the earlier one", () => {
  it("the same check failing on the same files: the newer lesson replaces the older", () => {
    const older = remember(
      emptyMemory(),
      "working",
      {
        text: "check types failed on src/a.ts: TS2322 — fixed in iteration 2 by changing src/a.ts",
        source: "lesson",
        date: "2026-11-01",
      },
      50,
    )
    const newer = remember(
      older,
      "working",
      {
        text: "check types failed on src/a.ts: TS2304 — fixed in iteration 4 by changing src/b.ts",
        source: "lesson",
        date: "2026-11-02",
      },
      50,
    )
    expect(entries(newer, "working").map((e) => e.text)).toEqual([
      "check types failed on src/a.ts: TS2304 — fixed in iteration 4 by changing src/b.ts",
    ])
    const otherCheck = remember(
      older,
      "working",
      {
        text: "check lint failed on src/a.ts: no-var — fixed in iteration 3 by changing src/a.ts",
        source: "lesson",
        date: "2026-11-02",
      },
      50,
    )
    expect(entries(otherCheck, "working")).toHaveLength(2)
  })

  it("a note naming exactly the same files replaces the older note; other files, sources or hand-written lines stay", () => {
    const older = remember(
      emptyMemory(),
      "working",
      { text: "src/db.ts opens one connection per request", source: "remember", date: "2026-11-01" },
      50,
    )
    const newer = remember(
      older,
      "working",
      {
        text: "src/db.ts uses the shared pool now, never one connection per request",
        source: "remember",
        date: "2026-11-02",
      },
      50,
    )
    expect(entries(newer, "working").map((e) => e.text)).toEqual([
      "src/db.ts uses the shared pool now, never one connection per request",
    ])
    expect(
      entries(
        remember(
          older,
          "working",
          { text: "src/db.ts and src/pool.ts share the config", source: "remember", date: "2026-11-02" },
          50,
        ),
        "working",
      ),
    ).toHaveLength(2)
    const hand = parseMemory("## Working memory\n\n- src/db.ts: my own note\n")
    expect(
      entries(
        remember(hand, "working", { text: "src/db.ts is slow", source: "remember", date: "2026-11-02" }, 50),
        "working",
      ),
    ).toHaveLength(2)
  })
})
