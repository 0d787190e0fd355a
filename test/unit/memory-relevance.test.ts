import { describe, expect, it } from "vitest"
import { lessonsOf, returningFailures } from "../../src/memory/lessons.js"
import { parseMemory, remember, emptyMemory, entries } from "../../src/memory/memory-file.js"
import { rememberRequests } from "../../src/memory/remember-tags.js"
import { hydrate, loopMemorySection, memoryPromptSection } from "../../src/memory/relevance.js"
import type { DiagnosticSnapshot } from "../../src/checks/diagnostics.js"

describe("<remember> tags", () => {
  it("reads both forms from prose, not from code or quotes", () => {
    const text = [
      "Done. <remember>Run the tests with npm test</remember>",
      "<remember priority>Use pnpm, never npm</remember>",
      "Inline `<remember>not this</remember>` and",
      "```",
      "<remember>nor this</remember>",
      "```",
      "> <remember>nor a quote</remember>",
      "<remember>   </remember>",
    ].join("\n")
    expect(rememberRequests(text)).toEqual([
      { section: "working", text: "Run the tests with npm test" },
      { section: "priority", text: "Use pnpm, never npm" },
    ])
  })
})

describe("hydration", () => {
  const memory = ["Use pnpm, never npm", "p2"].reduce(
    (m, t) => remember(m, "priority", { text: t, source: "command", date: "2026-11-01" }, 50),
    emptyMemory(),
  )
  const withWorking = [
    "check tsc failed on src/a.js: TS2322 — fixed in iteration 2 by changing src/a.js",
    "the billing export needs the EU date format",
    "unrelated note about the logo colour",
  ].reduce((m, t) => remember(m, "working", { text: t, source: "lesson", date: "2026-11-02" }, 50), memory)

  it("gives every priority entry and only the working entries that share something with the task or files", () => {
    const h = hydrate(withWorking, "fix the types in src/a.js", ["src/a.js"], 2_000)
    expect(h.priority).toEqual(["Use pnpm, never npm", "p2"])
    expect(h.relevant).toEqual(["check tsc failed on src/a.js: TS2322 — fixed in iteration 2 by changing src/a.js"])
    expect(hydrate(withWorking, "add a dark theme toggle", ["src/theme.css"], 2_000).relevant).toEqual([])
  })

  it("a file the task names without @ counts as a file of the loop", () => {
    const loop = (task: string) => ({ task, targets: [], settings: { memoryBudgetChars: 2_000 } })
    expect(loopMemorySection(withWorking, loop("refactor src/a.js"))).toContain("- check tsc failed on src/a.js")
    expect(loopMemorySection(withWorking, loop("refactor the parser"))).not.toContain("check tsc failed")
  })

  it("stays within the budget and says how much it left out", () => {
    const h = hydrate(withWorking, "billing export src/a.js", ["src/a.js"], 60)
    expect([...h.priority, ...h.relevant].reduce((n, t) => n + t.length + 3, 0)).toBeLessThanOrEqual(60)
    expect(h.omitted).toBeGreaterThan(0)
    expect(memoryPromptSection(h, ".opencode/ralph-loop/memory.md")).toMatch(/more entr(y|ies) left out/)
    expect(memoryPromptSection(hydrate(emptyMemory(), "x", [], 2_000), "m")).toBeUndefined()
  })

  it("a 1 MB memory file is parsed and hydrated within the budget", () => {
    let text = "## Priority\n\n## Working memory\n\n"
    for (let i = 0; text.length < 1_000_000; i += 1)
      text += `- 2026-11-01 · lesson · note ${i} about module${i % 500} and its handler\n`
    const h = hydrate(parseMemory(text), "fix module42 handler", [], 2_000)
    expect(h.relevant.length).toBeGreaterThan(0)
    expect(h.relevant.join("").length).toBeLessThanOrEqual(2_000)
  })
})

describe("lessons", () => {
  const TS2322 = "src/a.js(1,1): error TS2322: Type 'x' is not assignable"
  const snapshot = (iteration: number, output: string): DiagnosticSnapshot => {
    const status = output ? "failed" : "passed"
    return {
      iteration,
      at: 0,
      errors: output ? 1 : 0,
      warnings: 0,
      info: 0,
      securityIssues: 0,
      testsRun: 0,
      testsFailed: 0,
      testsPassed: 0,
      files: [],
      checks: [
        {
          name: "tsc",
          kind: "typecheck",
          command: "tsc",
          status,
          exitCode: output ? 1 : 0,
          durationMs: 1,
          output,
          errors: 0,
          warnings: 0,
          info: 0,
          security: 0,
          testsRun: 0,
          testsFailed: 0,
          testsPassed: 0,
          files: [],
        },
      ],
    }
  }

  it("a failure fixed before the end becomes a lesson naming the check, the failure, its file and the fix; an unfixed one does not", () => {
    const lessons = lessonsOf({
      snapshots: [snapshot(1, TS2322), snapshot(2, "")],
      checkNames: ["tsc"],
      recurring: [],
      changed: ["src/a.js", "README.md"],
    })
    expect(lessons).toEqual([
      {
        source: "lesson",
        text: "check tsc failed on src/a.js: src/a.js TS2322: Type 'x' is not assignable — fixed in iteration 2 by changing src/a.js",
      },
    ])
    expect(lessonsOf({ snapshots: [snapshot(1, TS2322)], checkNames: ["tsc"], recurring: [], changed: [] })).toEqual([])
  })

  it("the same failure of the same check in a later loop is named as a circular fix across loops; another failure on that file is not", () => {
    const [lesson] = lessonsOf({
      snapshots: [snapshot(1, TS2322), snapshot(2, "")],
      checkNames: ["tsc"],
      recurring: [],
      changed: ["src/a.js"],
    })
    const memory = remember(emptyMemory(), "working", { ...lesson!, date: "2026-11-02" }, 50)
    const back = returningFailures(
      entries(memory, "working"),
      snapshot(4, "src/a.js(7,3): error TS2322: Type 'x' is not assignable"),
      ["tsc"],
    )
    expect(back).toHaveLength(1)
    expect(back[0]).toMatch(/^circular fix across loops: an earlier loop \(2026-11-02\) fixed this/)
    expect(
      returningFailures(entries(memory, "working"), snapshot(4, "src/a.js(1,1): error TS2304: Cannot find name 'y'"), [
        "tsc",
      ]),
    ).toEqual([])
    expect(returningFailures(entries(memory, "working"), snapshot(4, ""), ["tsc"])).toEqual([])
  })
})
