// Benchmark 8 — hydrating a loop's prompt from the project memory (issue 13): read
// .opencode/ralph-loop/memory.md, parse it and pick what the loop is given within
// memoryBudgetChars — from a 1 MB memory file (about 14,000 entries, far past the default 50)
// beside an empty one. Run in a child node process on the built dist/, in a temp project.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface HydrationCase {
  name: string
  fileBytes: number
  entries: number
  medianMs: number
  /** Characters of the prompt section the loop is given. */
  sectionChars: number
}

export interface HydrationResult {
  budgetChars: number
  cases: HydrationCase[]
}

const BUDGET = 2_000

function bigMemory(bytes: number): { text: string; entries: number } {
  let text = "## Priority\n\n- 2026-11-01 · command · Use pnpm, never npm\n\n## Working memory\n\n"
  let entries = 0
  for (; text.length < bytes; entries += 1)
    text += `- 2026-11-01 · lesson · check types failed on src/module${entries % 700}.ts: error TS2322 in handler ${entries} — fixed in iteration 3\n`
  return { text: `${text}\n## Manual\n`, entries: entries + 1 }
}

async function measure(): Promise<HydrationResult> {
  const { MemoryStore } = await loadDist<typeof import("../src/memory/memory-store.js")>("memory/memory-store.js")
  const { loopMemorySection } = await loadDist<typeof import("../src/memory/relevance.js")>("memory/relevance.js")
  const runs = QUICK ? 5 : 20
  const loop = {
    task: "fix the handler in src/module42.ts",
    targets: ["src/module42.ts"],
    settings: { memoryBudgetChars: BUDGET },
  }
  const cases: HydrationCase[] = []
  for (const [name, memory] of [
    ["empty memory file", { text: "", entries: 0 }],
    ["1 MB memory file", bigMemory(1024 * 1024)],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), "ralph-bench-memory-"))
    try {
      mkdirSync(join(dir, ".opencode/ralph-loop"), { recursive: true })
      if (memory.text) writeFileSync(join(dir, ".opencode/ralph-loop/memory.md"), memory.text)
      const store = new MemoryStore(dir, () => undefined)
      const times: number[] = []
      let section = ""
      for (let i = 0; i < runs + 2; i += 1) {
        const started = process.hrtime.bigint()
        section = loopMemorySection(await store.read(), loop) ?? ""
        if (i >= 2) times.push(Number(process.hrtime.bigint() - started) / 1e6)
      }
      cases.push({
        name,
        fileBytes: memory.text.length,
        entries: memory.entries,
        medianMs: round(median(times), 2),
        sectionChars: section.length,
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return { budgetChars: BUDGET, cases }
}

export function runMemoryHydrationBench(): Promise<HydrationResult> {
  return runChild<HydrationResult>(fileURLToPath(import.meta.url), [], {}, 5 * 60_000)
}

runAsChild(import.meta.url, "memory-hydration", measure)
