// The patterns run on model output, check output, plans and memory files (issue 29, defect 5): each
// must read its text in linear time. Every "hostile" input below took the old code from minutes to
// hours, far beyond the test timeout (it was quadratic or worse in it: measured on smaller inputs and
// scaled); read linearly, it takes milliseconds. Beside each, ordinary inputs that give what they
// gave before.
import { describe, expect, it } from "vitest"
import { providerDelayMs } from "../../src/loop/backoff.js"
import { parseCheckOutput, snapshotOf } from "../../src/checks/diagnostics.js"
import { findingsOf, mentionedFiles } from "../../src/checks/findings.js"
import { refusal } from "../../src/loop/protected-paths.js"
import { parseStatusBlock } from "../../src/loop/status-block.js"
import { targetsOf } from "../../src/loop/targets.js"
import { returningFailures } from "../../src/memory/lessons.js"
import { supersedes } from "../../src/memory/memory-file.js"
import { storyWorktreeName } from "../../src/worktrees/parallel.js"
import { learningsIn } from "../../src/store/progress-entry.js"
import { parseProgress } from "../../src/store/progress-log.js"
import { parseVerdict } from "../../src/review/verdict.js"

const MB = 1_000_000

describe("check output", () => {
  it("test counts after a megabyte-long number", () => {
    const counts = parseCheckOutput("test", `${"7".repeat(MB)}\n 2 passing\n 1 failing\n`, 0)
    expect(counts).toMatchObject({ testsFailed: 1, testsPassed: 2, testsRun: 3 })
  })

  it("ESLint's summary after a two-megabyte-long number", () => {
    const counts = parseCheckOutput("lint", `${"7".repeat(2 * MB)}\n✖ 3 problems (2 errors, 1 warning)\n`, 0)
    expect(counts).toMatchObject({ errors: 2, warnings: 1 })
  })

  it("counts as before on ordinary output", () => {
    expect(parseCheckOutput("test", " Tests  1 failed | 4 passed (5)\n", 1)).toMatchObject({
      testsFailed: 1,
      testsPassed: 4,
    })
    expect(parseCheckOutput("test", "Tests: 2 failed, 3 passed, 5 total\n", 1)).toMatchObject({
      testsFailed: 2,
      testsPassed: 3,
    })
    expect(parseCheckOutput("test", "# pass 6\n# fail 0\n", 0)).toMatchObject({ testsFailed: 0, testsPassed: 6 })
    expect(parseCheckOutput("test", "=== 12 failed, 30 passed in 2.1s ===", 1)).toMatchObject({
      testsFailed: 12,
      testsPassed: 30,
    })
    expect(
      parseCheckOutput(
        "lint",
        "/p/src/a.js\n  1:1  error  Missing semicolon  semi\n\n✖ 1 problem (1 error, 0 warnings)\n",
        1,
        "/p",
      ),
    ).toMatchObject({
      errors: 1,
      warnings: 0,
      files: [{ path: "src/a.js", errors: 1, warnings: 0 }],
    })
  })

  it("an ESLint unix line of 140 KB whose last bracket does not run to the end", () => {
    const hostile = `g${":0:0: ".repeat(10_000)}${" [Error/".repeat(10_000)}]]`
    expect(findingsOf(`src/a.js:1:2: Missing semicolon. [Error/semi]\n${hostile}`)).toEqual([
      { path: "src/a.js", severity: "error" },
    ])
  })

  it("a two-megabyte line of slashes before an ESLint stylish block", () => {
    const output = `${"/".repeat(2 * MB)}\u0000\n/p/src/a.js\n  1:1  warning  Unexpected console  no-console\n`
    expect(findingsOf(output, "/p")).toEqual([{ path: "src/a.js", severity: "warning" }])
  })

  it("reads ESLint's unix and stylish formats as before", () => {
    const unix = [
      "src/a.js:1:2: Missing semicolon. [Error/semi]",
      "src/b.js:3:4: Unexpected console statement. [Warning/no-console]",
      "src/c.js:5:6: a [Error/x] then [Warning/y]",
      "src/d.js:7:8: the bracket ] is closed early [Error/z]]",
      "C:\\p\\e.js:1:1: x [Error/r]",
    ].join("\n")
    expect(findingsOf(unix)).toEqual([
      { path: "src/a.js", severity: "error" },
      { path: "src/b.js", severity: "warning" },
      { path: "src/c.js", severity: "warning" },
      { path: "C:\\p\\e.js", severity: "error" },
    ])
    const stylish = [
      "C:\\p\\src\\f.ts",
      "  2:3  error  Bad  rule",
      "",
      "lib/g.mjs",
      "  1:1  warning  Meh  rule",
      "",
      "no-slash.js",
      "  1:1  error  Lost  rule",
    ].join("\n")
    expect(findingsOf(stylish)).toEqual([
      { path: "C:\\p\\src\\f.ts", severity: "error" },
      { path: "lib/g.mjs", severity: "warning" },
    ])
  })

  it("files named after a two-megabyte word", () => {
    expect(mentionedFiles(`${"0".repeat(2 * MB)} see src/a.js:3`)).toEqual(["src/a.js"])
  })

  it("names files as before, not those in web addresses", () => {
    expect(mentionedFiles("at https://example.com/x/y.js and file:///p/z.ts, then src/a.ts:3 and (lib/b.js)")).toEqual([
      "src/a.ts",
      "lib/b.js",
    ])
  })
})

describe("model output", () => {
  it("a RALPH_STATUS block after two megabytes of dashes", () => {
    const text = `${"-".repeat(2 * MB)}\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n`
    expect(parseStatusBlock(text)).toEqual({ status: "COMPLETE", exitSignal: true })
  })

  it("reads the last status block as before", () => {
    const text =
      "-- RALPH_STATUS --\nSTATUS: BLOCKED\n--END_RALPH_STATUS--\n----ralph_status----\n**STATUS:** in progress\nTASKS_COMPLETED_THIS_LOOP: 2\n"
    expect(parseStatusBlock(text)).toEqual({ status: "IN_PROGRESS", tasksCompleted: 2 })
    expect(parseStatusBlock("---END_RALPH_STATUS---")).toBeUndefined()
  })

  it("the first learnings after a million and a half unclosed tags, and among 400,000 closed ones", () => {
    expect(learningsIn([`<learning>kept</learning>${"<learning>".repeat(1_600_000)}`])).toEqual(["kept"])
    const many = Array.from({ length: 400_000 }, (_, i) => `<learning>${i}</learning>`).join("")
    expect(learningsIn([many])).toEqual(["0", "1", "2", "3", "4"])
  })

  it("reads learnings as before", () => {
    const texts = [
      "<learning> use\n  pnpm </learning> <learning>use pnpm</learning><learning></learning>",
      "<learning>a <learning>b</learning> <learning>c",
    ]
    expect(learningsIn(texts)).toEqual(["use pnpm", "a <learning>b"])
  })

  it("a reviewer's reason with two megabytes of blanks in it", () => {
    const gap = " ".repeat(2 * MB)
    expect(parseVerdict(`<verdict>reject</verdict>\n* a${gap}b\r`)).toEqual({ kind: "reject", reasons: [`a${gap}b`] })
  })

  it("reads a reviewer's reasons as before", () => {
    expect(
      parseVerdict("<verdict>reject</verdict>\n  - the test was deleted  \n2) the stub returns 0\n•\tno docs\n-nope"),
    ).toEqual({
      kind: "reject",
      reasons: ["the test was deleted", "the stub returns 0", "no docs"],
    })
  })

  it("a bullet followed by blanks alone is no reason (it was one blank)", () => {
    expect(parseVerdict("- the API breaks\n<verdict>reject</verdict>\n-   \n")).toEqual({
      kind: "reject",
      reasons: ["the API breaks"],
    })
  })
})

describe("tool calls", () => {
  const area = { directory: "/p", folders: [".opencode/ralph-loop"] }
  const refused = (path: string) => `this command would change ${path}, which belongs to the running Ralph loop`

  it("a bash command of 800,000 `find`s", () => {
    expect(refusal("bash", { command: "find ".repeat(800_000) }, area)).toBeUndefined()
  })

  it("a bash command of 50,000 `git clean`s before an eight-megabyte word", () => {
    const command = `cat .opencode/ralph-loop/loop.json ${"git clean ".repeat(50_000)}${"x".repeat(8 * MB)}`
    expect(refusal("bash", { command }, area)).toBe(refused(".opencode/ralph-loop/loop.json"))
  })

  it("a bash command with a two-megabyte word of slashes", () => {
    expect(refusal("bash", { command: `rm ${"/".repeat(2 * MB)}a .opencode/ralph-loop/` }, area)).toBe(
      refused(".opencode/ralph-loop"),
    )
  })

  it("a file path of 10,000 stars before a line end", () => {
    const path = `.opencode/ralph-loop/${"*".repeat(10_000)}\n*`
    expect(refusal("write", { filePath: path }, area)).toBe(
      `write on ${path} is refused: it belongs to the running Ralph loop`,
    )
  })

  it("refuses and lets through as before", () => {
    expect(refusal("bash", { command: "ls\nfind .opencode/ralph-loop -name x\n-delete" }, area)).toBe(
      refused(".opencode/ralph-loop"),
    )
    expect(refusal("bash", { command: "find . -name '*.tmp' -delete" }, area)).toBeUndefined()
    expect(refusal("bash", { command: "git clean -fdx" }, area)).toBe(
      "git clean -x would delete the running Ralph loop's files",
    )
    expect(refusal("bash", { command: "git clean -n; echo -x" }, area)).toBeUndefined()
    expect(refusal("bash", { command: "cp a.txt '.opencode/ralph-loop///'" }, area)).toBe(
      refused(".opencode/ralph-loop"),
    )
    expect(refusal("write", { filePath: ".opencode/ralph-*/state.json" }, area)).toBeUndefined()
    expect(refusal("edit", { filePath: ".opencode/ralph-loop/*.json" }, area)).toBe(
      "edit on .opencode/ralph-loop/*.json is refused: it belongs to the running Ralph loop",
    )
  })
})

describe("tasks, plans, errors and memory", () => {
  it("a task's @path followed by two megabytes of punctuation", () => {
    const marks = "!".repeat(2 * MB)
    expect(targetsOf(`fix @src/a.ts${marks}a and @src/b.ts,`)).toEqual([`src/a.ts${marks}a`, "src/b.ts"])
  })

  it("reads a task's @paths as before", () => {
    expect(targetsOf("fix @./src/services/ and @lib/x.ts!?), not me@example.com")).toEqual([
      "src/services/",
      "lib/x.ts",
    ])
  })

  it("a story id with four megabytes of dashes", () => {
    expect(storyWorktreeName(`a${"-".repeat(4 * MB)}a`, [])).toMatch(/^story-a--[0-9a-f]{8}$/)
  })

  it("names a story's worktree as before", () => {
    expect(storyWorktreeName("us-001", [])).toBe("story-us-001")
    expect(storyWorktreeName("--US 001: Log in--", [])).toMatch(/^story-us-001-log-in--[0-9a-f]{8}$/)
    expect(storyWorktreeName("---", [])).toMatch(/^story-x--[0-9a-f]{8}$/)
  })

  it("a provider's reset header of two megabytes of dots", () => {
    expect(
      providerDelayMs(
        { message: "rate limited", headers: { "retry-after": "20", "x-ratelimit-reset-requests": ".".repeat(2 * MB) } },
        0,
      ),
    ).toBe(20_000)
  })

  it("reads a provider's durations as before", () => {
    expect(providerDelayMs({ message: "x", headers: { "x-ratelimit-reset-requests": "1m30.5s" } }, 0)).toBe(90_500)
    expect(providerDelayMs({ message: "Please try again in 2h 14m, and 5 seconds" }, 0)).toBe(8_045_000)
  })

  it("a progress log with a two-megabyte blank bullet", () => {
    const text = `# Ralph progress log\n\n## Codebase Patterns\n- use pnpm\n*\t${"\t".repeat(2 * MB)}\n\n---\n`
    expect(parseProgress(text).patterns).toEqual(["use pnpm"])
  })

  it("reads a progress log's patterns as before", () => {
    const text = "# Ralph progress log\n\n## Codebase Patterns\n  -   run the tests first  \n* a\r\n-x\n\n---\n"
    expect(parseProgress(text).patterns).toEqual(["run the tests first", "a"])
  })

  const lessonOf = (text: string) => ({ text, source: "lesson", count: 1, date: "2026-01-01" })

  it("a remembered note of a million ` failed on `s", () => {
    const hostile = `check a${"d failed on k".repeat(1_200_000)}`
    const failing = {
      name: "tsc",
      kind: "typecheck" as const,
      command: "tsc",
      status: "failed" as const,
      exitCode: 2,
      durationMs: 1,
      output: "",
      errors: 1,
      warnings: 0,
      info: 0,
      security: 0,
      testsRun: 0,
      testsFailed: 0,
      testsPassed: 0,
      files: [],
      failures: ["src/a.js TS2322"],
    }
    const lesson = "check tsc failed on src/a.js, src/b.js: src/a.js TS2322 — fixed in iteration 2"
    expect(
      returningFailures([lessonOf(hostile), lessonOf(lesson)], snapshotOf(3, 0, [failing]), [
        "tsc",
        `a${"d failed on k".repeat(1_000)}`,
      ]),
    ).toEqual([
      `circular fix across loops: an earlier loop (2026-01-01) fixed this and it is failing again — ${lesson}`,
    ])
    expect(
      supersedes(
        { text: `check a${"d failed on k".repeat(300_000)}`, source: "lesson" },
        lessonOf("check tsc failed on src/a.js: x"),
      ),
    ).toBe(false)
  })

  it("a newer lesson about the same check and files supersedes the older one, as before", () => {
    expect(
      supersedes(
        { text: "check tsc failed on src/a.js: TS1 — fixed", source: "lesson" },
        lessonOf("check tsc failed on src/a.js: TS2 — fixed"),
      ),
    ).toBe(true)
    expect(
      supersedes(
        { text: "check lint failed on src/a.js: x", source: "lesson" },
        lessonOf("check tsc failed on src/a.js: x"),
      ),
    ).toBe(false)
  })
})
