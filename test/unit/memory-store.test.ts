import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { entries, remember } from "../../src/memory/memory-file.js"
import { MEMORY_FILE, MemoryStore } from "../../src/memory/memory-store.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

describe("memory store", () => {
  it("writes changes one after another, each on the newest memory", async () => {
    const dir = tempDir("ralph-memory-")
    const store = new MemoryStore(dir, () => undefined)
    await Promise.all(
      ["a", "b", "c"].map((text) =>
        store.update((m) => remember(m, "working", { text, source: "remember", date: "2026-11-23" }, 50)),
      ),
    )
    expect(entries(await store.read(), "working").map((e) => e.text)).toEqual(["a", "b", "c"])
    expect(readFileSync(join(dir, MEMORY_FILE), "utf8")).toContain("## Working memory\n\n- 2026-11-23 · remember · a\n")
  })

  it("moves a file that is not a memory file aside, says so once, and starts a new one", async () => {
    const dir = tempDir("ralph-memory-")
    mkdirSync(join(dir, ".opencode/ralph-loop"), { recursive: true })
    writeFileSync(join(dir, MEMORY_FILE), "garbage { not markdown\n")
    const problems: string[] = []
    const store = new MemoryStore(
      dir,
      (message) => problems.push(message),
      () => Date.UTC(2026, 10, 23),
    )
    expect(entries(await store.read(), "working")).toEqual([])
    await store.read()
    expect(problems).toEqual([
      ".opencode/ralph-loop/memory.md has none of the headings ## Priority, ## Working memory, ## Staging, ## Manual; moved aside to .opencode/ralph-loop/memory.md.broken-2026-11-23T00-00-00-000Z and a new memory file is started",
    ])
    expect(readdirSync(join(dir, ".opencode/ralph-loop")).sort()).toEqual(["memory.md.broken-2026-11-23T00-00-00-000Z"])
    expect(existsSync(join(dir, MEMORY_FILE))).toBe(false)
  })
})
