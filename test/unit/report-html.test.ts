// ralph_report.html: one self-contained page with a chart per measure, one point per iteration.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import type { PlanState } from "../../src/plan/plan.js"
import { renderHtmlReport } from "../../src/status/report-html.js"
import { writeHtmlReport } from "../../src/status/report-write.js"
import { htmlReportFile } from "../../src/store/report.js"
import { lineChart } from "../../src/status/report-svg.js"
import { statusDocument } from "../../src/status/document.js"
import { readProjectLoops } from "../../src/status/read-project.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { parseHtml } from "../html-check.js"
import { tempDirs } from "../temp-dirs.js"
import { recordLoop, SAME_FAILURE, STEADY, T0 } from "./status-fixture.js"

const tempDir = tempDirs()

const plan: PlanState = {
  file: ".opencode/prd.json",
  shape: "userStories",
  stories: ["US-1", "US-2", "US-3"].map((id) => ({
    id,
    title: `story ${id}`,
    acceptanceCriteria: [],
    dependsOn: [],
    checks: [],
  })),
  done: [],
}

async function selectedOf(project: string, id: string) {
  const { loops, history } = await readProjectLoops(project)
  const selected = statusDocument(project, loops, history, id, T0).selected
  if (!selected) throw new Error(`no loop ${id}`)
  return selected
}

const points = (elements: ReturnType<typeof parseHtml>, chart: string, series: string) =>
  elements
    .filter((e) => e.tag === "circle" && e.attrs["data-series"] === series && e.path.includes("svg"))
    .filter((e) => chartOf(elements, e) === chart)
    .map((e) => [Number(e.attrs["data-iteration"]), Number(e.attrs["data-value"])])

/** The data-chart of the svg a circle is in (the last svg opened before it). */
function chartOf(
  elements: ReturnType<typeof parseHtml>,
  circle: ReturnType<typeof parseHtml>[number],
): string | undefined {
  const index = elements.indexOf(circle)
  return elements
    .slice(0, index)
    .reverse()
    .find((e) => e.tag === "svg")?.attrs["data-chart"]
}

describe("ralph_report.html", () => {
  it("a plan loop: one SVG per chart, one point per iteration, the struggle signal and the iteration table", async () => {
    const project = tempDir("ralph-report-")
    const store = new LoopStore(project)
    const steps = STEADY.map((s, i) => ({ ...s, storyDone: `US-${i + 1}` }))
    await recordLoop(store, "ses_plan", "build the <shop> & more", steps, { end: "completed", plan })
    const html = renderHtmlReport(await selectedOf(project, "ses_plan"), T0)
    const elements = parseHtml(html)
    expect(elements.filter((e) => e.tag === "svg").map((e) => e.attrs["data-chart"])).toEqual([
      "checks",
      "tokens",
      "cost",
      "time",
      "stories",
    ])
    expect(points(elements, "tokens", "tokens")).toEqual([
      [1, 1200],
      [2, 1100],
      [3, 1000],
    ])
    expect(points(elements, "time", "time")).toEqual([
      [1, 30_000],
      [2, 25_000],
      [3, 20_000],
    ])
    expect(points(elements, "cost", "cost").map(([x]) => x)).toEqual([1, 2, 3])
    expect(points(elements, "stories", "stories done")).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ])
    // The checks ran in iterations 1 and 3 only.
    expect(points(elements, "checks", "errors")).toEqual([
      [1, 3],
      [3, 0],
    ])
    expect(points(elements, "checks", "warnings")).toEqual([
      [1, 2],
      [3, 0],
    ])
    expect(elements.filter((e) => e.tag === "tr")).toHaveLength(1 + 3)
    expect(elements.find((e) => e.attrs["data-signal"])?.attrs["data-signal"]).toBe("ok")
    // Self-contained: no script, nothing fetched; the task is escaped.
    expect(elements.some((e) => e.tag === "script" || e.tag === "link" || e.tag === "img")).toBe(false)
    expect(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, "")).not.toMatch(/https?:|url\(/)
    expect(html).toContain("build the &#60;shop&#62; &#38; more")
  })

  it("a loop without a plan has no stories chart; the struggle signal says it is stuck", async () => {
    const project = tempDir("ralph-report-")
    await recordLoop(new LoopStore(project), "ses_fail", "fix the tests", SAME_FAILURE, { end: "max-iterations" })
    const elements = parseHtml(renderHtmlReport(await selectedOf(project, "ses_fail"), T0))
    expect(elements.filter((e) => e.tag === "svg").map((e) => e.attrs["data-chart"])).toEqual([
      "checks",
      "tokens",
      "cost",
      "time",
    ])
    expect(elements.find((e) => e.attrs["data-signal"])?.attrs["data-signal"]).toBe("stuck")
  })

  it("is written beside ralph_report.md, for a loop still running too", async () => {
    const project = tempDir("ralph-report-")
    await recordLoop(new LoopStore(project), "ses_run", "a running task", STEADY.slice(0, 2))
    const { loops } = await readProjectLoops(project)
    const saved = loops[0]
    if (!saved) throw new Error("no loop")
    const file = await writeHtmlReport(project, saved, T0)
    expect(file).toBe(htmlReportFile(project, saved))
    expect(file.endsWith(".opencode/sessions/ses_run/ralph_report.html")).toBe(true)
    const elements = parseHtml(readFileSync(file, "utf8"))
    expect(points(elements, "tokens", "tokens")).toEqual([
      [1, 1200],
      [2, 1100],
    ])
  })

  it("the evidence section: verified or why not, each check with its exit code and test counts, the files, the review, the guard's findings", async () => {
    const project = tempDir("ralph-report-")
    await recordLoop(new LoopStore(project), "ses_ev", "fix the sum", STEADY, { end: "completed" })
    const loop = await selectedOf(project, "ses_ev")
    const check = { name: "unit", command: "npm test", exitCode: 0, outputSha256: "a".repeat(64), ranAt: T0 }
    const skip = {
      kind: "skip" as const,
      file: "sum.test.js",
      name: "test.skip",
      line: 4,
      before: null,
      after: 'test.skip("slow", () => {',
      accepted: true,
    }
    const evidence = {
      verified: true,
      checks: [{ ...check, tests: { passed: 12, failed: 0, skipped: 1 } }],
      changedFiles: ["sum.js", "sum.test.js"],
      review: { verdict: "approve" as const, reasons: ["the fix is right"] },
      weakened: [skip],
    }
    const html = renderHtmlReport({ ...loop, evidence }, T0)
    const elements = parseHtml(html)
    expect(elements.find((e) => e.tag === "section")?.attrs).toEqual({ class: "evidence", "data-verified": "true" })
    expect(elements.filter((e) => e.attrs["data-check"]).map((e) => e.attrs)).toEqual([
      {
        "data-check": "unit",
        "data-exit-code": "0",
        "data-passed": "12",
        "data-failed": "0",
        "data-skipped": "1",
      },
    ])
    expect(elements.filter((e) => e.attrs["data-file"]).map((e) => e.attrs["data-file"])).toEqual([
      "sum.js",
      "sum.test.js",
    ])
    expect(elements.find((e) => e.attrs["data-review"])?.attrs["data-review"]).toBe("approve")
    expect(elements.filter((e) => e.attrs["data-finding"]).map((e) => e.attrs)).toEqual([
      { "data-finding": "skip", "data-accepted": "true" },
    ])
    expect(html).toContain("verified — unit 12 passed, 1 skipped")
    expect(html).toContain("accepted: sum.test.js:4 skips or focuses a test (test.skip)")

    // Not verified: a check failed, and a finding stands; no review.
    const failed = { ...evidence, verified: false, checks: [{ ...check, exitCode: 1, tests: null }], review: null }
    const refused = renderHtmlReport({ ...loop, evidence: { ...failed, weakened: [{ ...skip, accepted: false }] } }, T0)
    const parsed = parseHtml(refused)
    expect(parsed.find((e) => e.tag === "section")?.attrs["data-verified"]).toBe("false")
    expect(parsed.find((e) => e.attrs["data-review"])?.attrs["data-review"]).toBe("none")
    expect(refused).toContain("not verified: unit failed; the guard found 1 change that weakens the checks")
    expect(parsed.find((e) => e.attrs["data-finding"])?.attrs["data-accepted"]).toBe("false")

    // The replay: each check it ran with its failing tests, and the changed expectation (issue 46).
    const replay = {
      status: "ran" as const,
      tree: "t",
      putBack: ["test/greet.test.js"],
      leftOut: [],
      merged: [],
      ignored: [],
      checks: [
        {
          name: "unit",
          command: "npm test",
          exitCode: 1,
          passed: false,
          tests: { passed: 0, failed: 1, skipped: 0 },
          failures: ["test/greet.test.js > greets"],
          outputSha256: "",
        },
      ],
      expectations: [{ file: "test/greet.test.js", name: "greets", start: 'toBe("Hello")', end: 'toBe("Hi")' }],
    }
    const replayed = renderHtmlReport({ ...loop, evidence: { ...failed, replay } }, T0)
    const cells = parseHtml(replayed).filter((e) => e.attrs["data-replay-check"])
    expect(cells.map((e) => e.attrs)).toEqual([{ "data-replay-check": "unit", "data-passed": "false" }])
    expect(replayed).toMatch(/<td>test\/greet\.test\.js &#62; greets<\/td>/)
    expect(replayed).toContain('data-expectation="greets"')
  })

  it("the evidence section of a loop that did not complete shows the guard's last findings; none without either", async () => {
    const project = tempDir("ralph-report-")
    await recordLoop(new LoopStore(project), "ses_no", "fix the sum", SAME_FAILURE, { end: "max-iterations" })
    const loop = await selectedOf(project, "ses_no")
    expect(parseHtml(renderHtmlReport(loop, T0)).some((e) => e.tag === "section")).toBe(false)
    const finding = {
      kind: "check-script" as const,
      file: "package.json",
      name: "test",
      before: "vitest run",
      after: "echo ok",
      accepted: false,
      key: "check-script:package.json:test:echo ok",
      text: "the script",
    }
    const html = renderHtmlReport(
      {
        ...loop,
        guard: { iteration: 3, findings: [finding], replay: null, acceptable: [], accepted: [], refusedAccepts: [] },
      },
      T0,
    )
    const elements = parseHtml(html)
    expect(elements.find((e) => e.tag === "section")?.attrs).toEqual({ class: "evidence" })
    expect(elements.find((e) => e.attrs["data-finding"])?.attrs["data-finding"]).toBe("check-script")
    expect(html).toContain("The guard's findings (iteration 3)")
  })

  it("a plan loop's evidence section has each story's verdict", async () => {
    const project = tempDir("ralph-report-")
    await recordLoop(new LoopStore(project), "ses_pl", "the shop", STEADY, { end: "completed", plan })
    const loop = await selectedOf(project, "ses_pl")
    const none = { verified: false, checks: [], changedFiles: ["US-1.txt"], review: null, weakened: [] }
    const stories = (loop.plan?.stories ?? []).map((s, i) => ({ ...s, done: i === 0, evidence: i === 0 ? none : null }))
    const html = renderHtmlReport({ ...loop, plan: loop.plan && { ...loop.plan, stories } }, T0)
    const rows = parseHtml(html).filter((e) => e.attrs["data-story"])
    expect(rows.map((e) => [e.attrs["data-story"], e.attrs["data-verified"]])).toEqual([
      ["US-1", "false"],
      ["US-2", undefined],
      ["US-3", undefined],
    ])
    expect(html).toContain("not verified: no check ran")
  })

  it("a chart of one point and a chart of none draw without dividing by zero", () => {
    const one = parseHtml(
      lineChart({ id: "t", title: "t", yLabel: "y", series: [{ name: "s", color: "#000", points: [{ x: 4, y: 0 }] }] }),
    )
    expect(one.filter((e) => e.tag === "circle").map((e) => [e.attrs.cx, e.attrs.cy])).toEqual([["340", "184"]])
    expect(lineChart({ id: "t", title: "t", yLabel: "y", series: [] })).toContain("no data")
  })
})
