import { describe, expect, it } from "vitest"
import type { Decision } from "../../src/loop/decide.js"
import { learningsIn, outcomeOf, renderEntry, type ProgressEntry } from "../../src/store/progress-entry.js"
import {
  addPatterns,
  appendEntry,
  MAX_PATTERNS,
  parseProgress,
  progressExcerpt,
  renderProgress,
  renderRotated,
} from "../../src/store/progress-log.js"

const AT = Date.UTC(2025, 0, 6, 9, 30, 5)

function entry(extra: Partial<ProgressEntry> = {}): ProgressEntry {
  return {
    at: AT,
    loopID: "ses_abc",
    task: "build the shop\nwith details",
    iteration: 2,
    story: { id: "US-002", title: "checkout" },
    storyDone: { id: "US-002", iteration: 2, checks: ["tests", "types"] },
    decision: { type: "restart", fresh: false },
    files: ["src/cart.ts", "src/pay.ts"],
    failingChecks: [],
    checksRanAt: 2,
    learnings: ["prices are in cents"],
    ...extra,
  }
}

describe("a progress entry", () => {
  it("says time, loop, story, outcome, files, failing checks and learnings", () => {
    expect(renderEntry(entry())).toBe(
      [
        "## 2025-01-06 09:30:05Z · iteration 2 · story US-002",
        "- Loop: ses_abc — checkout",
        "- Outcome: story US-002 done — checks passed: tests, types",
        "- Files changed since the loop began: src/cart.ts, src/pay.ts",
        "- Failing checks: none",
        "- Learnings for future iterations:",
        "  - prices are in cents",
      ].join("\n"),
    )
  })

  it('an iteration whose checks did not run carries the latest run\'s failures, marked with when it ran — never a bare "none"', () => {
    const line = (extra: Partial<ProgressEntry>) =>
      renderEntry(entry({ iteration: 1, storyDone: undefined, ...extra }))
        .split("\n")
        .find((l) => l.startsWith("- Failing checks"))
    expect(line({ failingChecks: ["types (failed)"], checksRanAt: 0 })).toBe(
      "- Failing checks (latest run, before the first prompt): types (failed)",
    )
    expect(line({ iteration: 4, failingChecks: [], checksRanAt: 3 })).toBe(
      "- Failing checks (latest run, iteration 3): none",
    )
    expect(line({ failingChecks: [], checksRanAt: undefined })).toBe("- Failing checks: no check has run yet")
    expect(line({ failingChecks: ["tests (failed)"], checksRanAt: 1 })).toBe("- Failing checks: tests (failed)")
  })

  it("names the outcome of every kind of decision", () => {
    const outcome = (decision: Decision, storyDone?: ProgressEntry["storyDone"]) => outcomeOf({ decision, storyDone })
    expect(
      outcome({ type: "restart", fresh: false, feedback: "Ralph Loop: CONTINUE | 1 test(s) failing\n\ndetails" }),
    ).toBe("not done yet: Ralph Loop: CONTINUE | 1 test(s) failing")
    expect(outcome({ type: "restart", fresh: true, note: "the context window overflowed" })).toBe(
      "not done yet: the context window overflowed",
    )
    expect(outcome({ type: "restart", fresh: false })).toBe("not done yet (no promise)")
    expect(outcome({ type: "complete", detail: "the promise was kept" })).toBe("completed — the promise was kept")
    expect(outcome({ type: "complete", detail: "x" }, { id: "US-003", iteration: 3, checks: [] })).toBe(
      "story US-003 done — no checks configured; every story of the plan is done",
    )
    expect(outcome({ type: "stop", reason: "max-iterations", detail: "6 iterations" })).toBe(
      "stopped (max-iterations): 6 iterations",
    )
    expect(outcome({ type: "wait", wait: { reason: "backoff", until: 0, then: "resume" }, detail: "429" })).toBe(
      "waiting (backoff): 429",
    )
  })

  it("takes the model's <learning> lines: one line each, at most five, no repeats", () => {
    const texts = [
      "<learning>use  the\n cart API</learning> and <learning>use the cart API</learning>",
      "<learning>a</learning><learning>b</learning><learning>c</learning><learning>d</learning><learning>e</learning>",
    ]
    expect(learningsIn(texts)).toEqual(["use the cart API", "a", "b", "c", "d"])
    expect(learningsIn(["no tags"])).toEqual([])
  })
})

describe("the progress file", () => {
  it("starts with the Codebase Patterns section, then one entry per iteration, separated by ---", () => {
    const first = appendEntry("", renderEntry(entry({ iteration: 1 })), ["prices are in cents"]).text
    const second = appendEntry(first, renderEntry(entry({ iteration: 2, learnings: ["tests live in test/"] })), [
      "tests live in test/",
      "Prices are in  cents",
    ]).text
    expect(
      second.startsWith(
        "# Ralph progress log\n\n## Codebase Patterns\n- prices are in cents\n- tests live in test/\n\n---\n\n## 2025-01-06 09:30:05Z · iteration 1",
      ),
    ).toBe(true)
    const doc = parseProgress(second)
    expect(doc.entries).toHaveLength(2)
    expect(doc.entries[1]).toContain("iteration 2")
    expect(renderProgress(doc)).toBe(second)
  })

  it("keeps what the user wrote at the top", () => {
    const own =
      "# Ralph progress log\n\n## Codebase Patterns\n- mine\n\n## Notes\nmy own words\n\n---\n\nold entry\n\n---\n"
    const doc = parseProgress(appendEntry(own, "new entry", []).text)
    expect(doc).toEqual({
      patterns: ["mine"],
      extra: ["## Notes", "my own words"],
      entries: ["old entry", "new entry"],
    })
  })

  it("keeps at most MAX_PATTERNS patterns, the newest", () => {
    const many = Array.from({ length: MAX_PATTERNS + 5 }, (_, i) => `pattern ${i}`)
    const kept = addPatterns([], many)
    expect(kept).toHaveLength(MAX_PATTERNS)
    expect(kept[0]).toBe("pattern 5")
  })

  it("rotates the oldest entries out beyond the limit, keeping the patterns and the newest entry", () => {
    let text = ""
    const rotated: string[] = []
    for (let i = 0; i < 30; i += 1) {
      const next = appendEntry(text, `entry ${i} ${"x".repeat(100)}`, i === 0 ? ["keep me"] : [], 1_000, 500)
      text = next.text
      rotated.push(...next.rotated)
    }
    expect(text.length).toBeLessThanOrEqual(1_000)
    const doc = parseProgress(text)
    expect(doc.patterns).toEqual(["keep me"])
    expect(doc.entries.at(-1)).toMatch(/^entry 29 /)
    expect([...rotated, ...doc.entries].map((e) => e.split(" ")[1])).toEqual(
      Array.from({ length: 30 }, (_, i) => String(i)),
    )
    const file = renderRotated(undefined, rotated.slice(0, 2), "2025-01-06")
    expect(file).toBe(
      `# Ralph progress log — older entries (rotated 2025-01-06)\n\n---\n\n${rotated[0]}\n\n---\n\n${rotated[1]}\n`,
    )
    expect(renderRotated(file, ["later"], "2025-01-07")).toBe(`${file.trimEnd()}\n\n---\n\nlater\n`)
  })
})

describe("the excerpt for prompts and handoffs", () => {
  it("holds the patterns and the newest three entries, within the budget", () => {
    let text = ""
    for (let i = 1; i <= 6; i += 1)
      text = appendEntry(text, renderEntry(entry({ iteration: i, checksRanAt: i, learnings: [`lesson ${i}`] })), [
        `lesson ${i}`,
      ]).text
    const excerpt = progressExcerpt(text)
    expect(excerpt).toContain("Codebase patterns learned so far:\n- lesson 1\n")
    expect(excerpt).toContain("### 2025-01-06 09:30:05Z · iteration 6")
    expect(excerpt).toContain("iteration 4")
    expect(excerpt).not.toContain("iteration 3 ")
    expect(progressExcerpt(text, 400).length).toBeLessThanOrEqual(400)
    expect(progressExcerpt(undefined)).toBe("")
  })

  it("for a loop's handoff, only that loop's entries (another loop's iterations are not its history); the patterns are everyone's", () => {
    let text = ""
    for (const [loopID, i] of [
      ["ses_a", 1],
      ["ses_b", 2],
      ["ses_a", 3],
      ["ses_b", 4],
    ] as const)
      text = appendEntry(text, renderEntry(entry({ loopID, iteration: i, learnings: [`lesson of ${loopID}`] })), [
        `lesson of ${loopID}`,
      ]).text
    const excerpt = progressExcerpt(text, undefined, "ses_a")
    expect(excerpt).toContain("- lesson of ses_b")
    expect(excerpt.match(/- Loop: \S+/g)).toEqual(["- Loop: ses_a", "- Loop: ses_a"])
  })
})
