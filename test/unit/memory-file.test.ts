import { describe, expect, it } from "vitest"
import { BrokenMemoryError, clearWorking, emptyMemory, entries, manualText, parseMemory, remember, serializeMemory } from "../../src/memory/memory-file.js"

const MANUAL = "## Manual\n\nMy own notes.\n  - indented, *not* an entry\n\n```\n## Priority\n```\n"
const FILE = `# Ralph memory\n\n## Priority\n\n- 2026-11-01 · command · Use pnpm, never npm\n\n## Working memory\n\n- 2026-11-02 · lesson ×2 · check tsc failed on src/a.ts: TS2322 — fixed in iteration 3\n- a line I wrote by hand\n\n${MANUAL}`

describe("memory file", () => {
  it("reads the three sections, hand-written lines included, and writes them back as they were", () => {
    const memory = parseMemory(FILE)
    expect(entries(memory, "priority")).toEqual([{ date: "2026-11-01", source: "command", count: 1, text: "Use pnpm, never npm" }])
    expect(entries(memory, "working").map((e) => [e.source, e.count, e.text])).toEqual([
      ["lesson", 2, "check tsc failed on src/a.ts: TS2322 — fixed in iteration 3"],
      ["hand-written", 1, "a line I wrote by hand"],
    ])
    expect(serializeMemory(memory)).toBe(FILE)
  })

  it("the same text again is one entry with a count and the newer date, in whichever section holds it", () => {
    let memory = parseMemory(FILE)
    memory = remember(memory, "working", { text: "use  PNPM, never npm", source: "remember", date: "2026-11-23" }, 50)
    memory = remember(memory, "working", { text: "A new lesson\nover two lines", source: "remember", date: "2026-11-23" }, 50)
    expect(entries(memory, "priority")).toEqual([{ date: "2026-11-23", source: "command", count: 2, text: "Use pnpm, never npm" }])
    expect(entries(memory, "working").at(-1)).toEqual({ date: "2026-11-23", source: "remember", count: 1, text: "A new lesson over two lines" })
  })

  it("keeps the newest working entries beyond the limit; hand-written lines and priority stay", () => {
    let memory = parseMemory(FILE)
    for (let i = 1; i <= 4; i += 1) memory = remember(memory, "working", { text: `lesson ${i}`, source: "lesson", date: `2026-11-2${i}` }, 2)
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
    const memory = remember(parseMemory("## Manual\nmine\n"), "priority", { text: "x", source: "command", date: "2026-11-23" }, 50)
    expect(serializeMemory(memory)).toBe("## Priority\n\n- 2026-11-23 · command · x\n\n## Working memory\n\n## Manual\nmine\n")
    expect(serializeMemory(parseMemory(""))).toBe(serializeMemory(emptyMemory()))
  })

  it("is broken only when it is not a memory file at all", () => {
    expect(() => parseMemory("just some text\nwithout headings\n")).toThrow(BrokenMemoryError)
    expect(() => parseMemory("## Priority\n\n## Priority\n")).toThrow(/twice/)
    expect(() => parseMemory("## Priority\n\u0000\u0001")).toThrow(/binary/)
    expect(() => parseMemory("## working MEMORY\n- anything\n")).not.toThrow()
  })
})
