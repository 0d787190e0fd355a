// The guard on a claim of done (issue 39) in the real OpenCode, with the real vitest and pytest: a
// claim whose changes skip a test, rewrite the `npm test` script or delete a test is refused as a
// failing check is, and so is a rewritten check in the loop's own settings file; the next prompt
// names the finding; restored and fixed, the loop completes;
// a loop that adds a test and fixes the code completes on that claim.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir, type Project } from "../harness/harness.js"
import { messageText, type MockRequest, type Reply } from "../harness/mock-model.js"
import { reportFile } from "../harness/loop-files.js"
import { parseHtml } from "../html-check.js"
import { ralphCli, sharedHarness, waitForFile, waitForLoopEnd } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
/** The plugin's prompts to the loop's session (the first, then each iteration's). */
const prompts = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user" && !isControl(r))

const PACKAGE = { name: "guarded", private: true, type: "module", scripts: { test: "vitest run" } }
const SUM_BUGGY = "export const add = (a, b) => a - b\n"
const SUM_FIXED = "export const add = (a, b) => a + b\n"
const TEST =
  'import { expect, test } from "vitest"\nimport { add } from "./sum.js"\n\ntest("adds two numbers", () => {\n  expect(add(1, 2)).toBe(3)\n})\n'
const TEST_SKIPPED = TEST.replace('test("adds', 'test.skip("adds')
const TEST_ADDED = `${TEST}\ntest("adds zero", () => {\n  expect(add(2, 0)).toBe(2)\n})\n`

/** A JS project whose one test fails; vitest from this package (its own node_modules holds links only). */
function jsProject(project: Project): void {
  const dir = project.dir
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(PACKAGE, null, 2)}\n`)
  writeFileSync(join(dir, "sum.js"), SUM_BUGGY)
  writeFileSync(join(dir, "sum.test.js"), TEST)
  writeFileSync(join(dir, ".gitignore"), "node_modules/\n")
  mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true })
  symlinkSync(join(packageDir(), "node_modules", "vitest"), join(dir, "node_modules", "vitest"))
  symlinkSync(join(packageDir(), "node_modules", "vitest", "vitest.mjs"), join(dir, "node_modules", ".bin", "vitest"))
}

const write = (filePath: string, content: string) => ({ name: "write", args: { filePath, content } })

/** Each prompt gets `steps[i]` (the i-th prompt's writes), then the promise once they are written. */
function scripted(project: () => Project, steps: Array<Array<ReturnType<typeof write>>>) {
  return (r: MockRequest): Reply => {
    if (isControl(r)) return { text: "OK" }
    if (r.lastRole === "tool") return { text: "Done: the tests pass. <promise>DONE</promise>" }
    const index = prompts(project()).length - 1
    return { toolCalls: steps[Math.min(index, steps.length - 1)] ?? [] }
  }
}

const UNIT = { name: "unit", kind: "test", command: "npm test" }

describe("the guard on a claim of done", () => {
  it("refuses a test.skip, then a rewritten npm test script, naming each in the next prompt; restored and fixed, the loop completes", async () => {
    let project!: Project
    project = await harness().project("guard-js", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 6 },
      script: {
        main: scripted(
          () => project,
          [
            [write("sum.test.js", TEST_SKIPPED)],
            [
              write("sum.test.js", TEST),
              write("package.json", `${JSON.stringify({ ...PACKAGE, scripts: { test: "echo ok" } }, null, 2)}\n`),
            ],
            [write("package.json", `${JSON.stringify(PACKAGE, null, 2)}\n`), write("sum.js", SUM_FIXED)],
          ],
        ),
      },
    })
    jsProject(project)
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(loop).toMatchObject({ iteration: 3 })

    const [, second, third] = prompts(project).map((r) => r.lastUser)
    // The skipped test, put back as it was, fails on the replay tree (issue 46); the finding says what hid it.
    expect(second).toContain("The plugin did not accept your claim: the tests this project had when the loop began")
    expect(second).toContain("The completion claim was refused")
    expect(second).toContain("sum.test.js > adds two numbers")
    expect(second).toContain(
      'sum.test.js:4 skips or focuses a test (test.skip): `test.skip("adds two numbers", () => {`',
    )
    expect(third).toContain("The completion claim was refused")
    expect(third).toContain(
      'the "test" script in package.json, which a check runs, changed: before `vitest run`, after `echo ok`',
    )
    expect(third).not.toContain("skips or focuses")

    // The journal records each refused claim's findings; status --json the last claim's (none stands).
    const journal = readFileSync(join(project.dir, ".opencode/ralph-loop/journal.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; record?: { weakened?: string[] } })
    const weakened = journal.filter((e) => e.event === "decided").map((e) => e.record?.weakened ?? [])
    expect(weakened[0]?.[0]).toContain("skips or focuses a test")
    expect(weakened[1]?.[0]).toContain('the "test" script in package.json')
    expect(weakened[2]).toEqual([])
    const status = await ralphCli(project.dir, ["status", "--json"])
    const selected = (JSON.parse(status.stdout) as { selected: { guard: unknown; evidence: Record<string, unknown> } })
      .selected
    // Nothing refused that claim: nothing to accept; the test file the loop restored needed no replay.
    expect(selected.guard).toEqual({
      iteration: 3,
      findings: [],
      replay: { status: "not-needed" },
      acceptable: [],
      accepted: [],
      refusedAccepts: [],
    })
    // What the completion rests on: the check after the last change, with vitest's own counts.
    expect(selected.evidence).toMatchObject({
      verified: true,
      checks: [{ name: "unit", command: "npm test", exitCode: 0, tests: { passed: 1, failed: 0, skipped: 0 } }],
      changedFiles: ["sum.js"],
      review: null,
      weakened: [],
      // The last claim changed no file of the start's tests: the replay was not needed.
      replay: { status: "not-needed" },
    })
    expect((selected.evidence.checks as Array<{ outputSha256: string }>)[0]?.outputSha256).toMatch(/^[0-9a-f]{64}$/)
    // The report says it too.
    const report = await waitForFile(reportFile(project.dir, loop!.id))
    expect(report).toContain("## Evidence\n\nEvidence: verified — unit 1 passed · 1 file(s) changed")
    // And ralph_report.html, in its evidence section: the check with its exit code and counts, the file, no review.
    const html = await waitForFile(reportFile(project.dir, loop!.id).replace(/\.md$/, ".html"))
    const elements = parseHtml(html)
    expect(elements.find((e) => e.tag === "section")?.attrs).toEqual({ class: "evidence", "data-verified": "true" })
    expect(elements.filter((e) => e.attrs["data-check"]).map((e) => e.attrs)).toEqual([
      { "data-check": "unit", "data-exit-code": "0", "data-passed": "1", "data-failed": "0", "data-skipped": "0" },
    ])
    expect(elements.filter((e) => e.attrs["data-file"]).map((e) => e.attrs["data-file"])).toEqual(["sum.js"])
    expect(elements.find((e) => e.attrs["data-review"])?.attrs["data-review"]).toBe("none")
    expect(html).toContain("verified — unit 1 passed")
  })

  it("refuses a claim after the loop's own check in .opencode/ralph-loop.jsonc was rewritten to `true`, naming it; restored, the loop completes", async () => {
    const settings = (command: string) => `${JSON.stringify({ checks: [{ ...UNIT, command }] }, null, 2)}\n`
    let project!: Project
    project = await harness().project("guard-loop-checks", {
      configFile: settings("npm test"),
      pluginOptions: { strategy: "continue", maxRetries: 6 },
      script: {
        main: scripted(
          () => project,
          [
            // The code fixed too: npm test passes, so the guard alone refuses this claim.
            [write(".opencode/ralph-loop.jsonc", settings("true")), write("sum.js", SUM_FIXED)],
            [write(".opencode/ralph-loop.jsonc", settings("npm test"))],
          ],
        ),
      },
    })
    jsProject(project)
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(loop).toMatchObject({ iteration: 2 })
    const second = prompts(project)[1]?.lastUser ?? ""
    expect(second).toContain("The completion claim was refused")
    expect(second).toContain(
      ".opencode/ralph-loop.jsonc, which the checks read (check unit), changed: before `npm test`, after `true`",
    )
    const status = await ralphCli(project.dir, ["status", "--json"])
    const evidence = (JSON.parse(status.stdout) as { selected: { evidence: unknown } }).selected.evidence
    expect(evidence).toMatchObject({ verified: true, checks: [{ name: "unit", command: "npm test", exitCode: 0 }] })
  })

  it("a finding the user accepts by its key (guard.accept) does not refuse the claim; the evidence lists it as accepted", async () => {
    const key = 'skip:sum.test.js:test.skip:test.skip("adds two numbers", () => {'
    let project!: Project
    project = await harness().project("guard-accept", {
      configFile: JSON.stringify({ guard: { accept: [key] } }),
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 6 },
      script: { main: scripted(() => project, [[write("sum.test.js", TEST_SKIPPED)]]) },
    })
    jsProject(project)
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(loop).toMatchObject({ iteration: 1 })
    const status = await ralphCli(project.dir, ["status", "--json"])
    const evidence = (JSON.parse(status.stdout) as { selected: { evidence: Record<string, unknown> } }).selected
      .evidence
    expect(evidence).toMatchObject({
      verified: true,
      checks: [{ name: "unit", tests: { passed: 0, failed: 0, skipped: 1 } }],
      weakened: [{ kind: "skip", file: "sum.test.js", accepted: true }],
    })
  })

  it("a key the model adds to guard.accept while the loop runs does not accept its own finding: the claim is refused again", async () => {
    const key = 'skip:sum.test.js:test.skip:test.skip("adds two numbers", () => {'
    const accepting = JSON.stringify(JSON.stringify({ guard: { accept: [key] } }))
    const bash = (command: string) => ({ name: "bash", args: { command, description: "Accept the finding" } })
    let project!: Project
    project = await harness().project("guard-self-accept", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 6 },
      script: {
        main: (r: MockRequest): Reply => {
          if (isControl(r)) return { text: "OK" }
          if (r.lastRole === "tool") return { text: "Done: the tests pass. <promise>DONE</promise>" }
          const steps = [
            [write("sum.test.js", TEST_SKIPPED)],
            // Refused: the model writes the finding's key into the settings file with a shell command that
            // names the folder in parts (the tool guard refuses one that names .opencode).
            [bash(`d=.open; d=\${d}code; printf '%s\\n' ${accepting} > $d/ralph-loop.jsonc`)],
            [write("sum.test.js", TEST), write("sum.js", SUM_FIXED)],
          ]
          return { toolCalls: steps[Math.min(prompts(project).length - 1, steps.length - 1)] ?? [] }
        },
      },
    })
    jsProject(project)
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(readFileSync(join(project.dir, ".opencode/ralph-loop.jsonc"), "utf8")).toContain(key.slice(0, 20))
    expect(loop).toMatchObject({ iteration: 3 })
    const [, second, third] = prompts(project).map((r) => r.lastUser)
    expect(second).toContain("skips or focuses a test (test.skip)")
    expect(third).toContain("The completion claim was refused")
    expect(third).toContain("skips or focuses a test (test.skip)")
  })

  it("a plan story done with no check is recorded as not verified, and never written back as verified", async () => {
    let project!: Project
    project = await harness().project("guard-plan", {
      pluginOptions: { strategy: "continue", checks: [], autoDetectChecks: false },
      script: { main: scripted(() => project, [[write("US-1.txt", "done\n")]]) },
    })
    mkdirSync(join(project.dir, ".opencode"), { recursive: true })
    const plan = {
      userStories: [{ id: "US-1", title: "write the file", acceptanceCriteria: ["US-1.txt exists"], passes: false }],
    }
    writeFileSync(join(project.dir, ".opencode/prd.json"), `${JSON.stringify(plan, null, 2)}\n`)
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    const written = JSON.parse(readFileSync(join(project.dir, ".opencode/prd.json"), "utf8")) as {
      userStories: Array<{ passes: boolean; notes: string }>
    }
    expect(written.userStories[0]).toMatchObject({
      passes: true,
      notes: "Done in iteration 1, not verified: no check ran",
    })
    const status = await ralphCli(project.dir, ["status", "--json"])
    const selected = (
      JSON.parse(status.stdout) as {
        selected: { evidence: { verified: boolean }; plan: { stories: Array<{ id: string; evidence: unknown }> } }
      }
    ).selected
    expect(selected.evidence).toMatchObject({ verified: false, checks: [], changedFiles: ["US-1.txt"] })
    expect(selected.plan.stories).toEqual([
      { id: "US-1", title: "write the file", done: true, evidence: selected.evidence },
    ])
  })

  it("refuses a deleted pytest test, naming it; restored with the fix, the loop completes", async () => {
    const TESTS =
      "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n\n\ndef test_double_zero():\n    assert double(0) == 0\n"
    const WITHOUT = "from calc import double\n\n\ndef test_double_zero():\n    assert double(0) == 0\n"
    let project!: Project
    project = await harness().project("guard-py", {
      pluginOptions: {
        strategy: "continue",
        checks: [{ name: "pytest", kind: "test", command: "python3 -m pytest -q -p no:cacheprovider" }],
        maxRetries: 6,
      },
      script: {
        main: scripted(
          () => project,
          [
            [write("test_calc.py", WITHOUT)],
            [write("test_calc.py", TESTS), write("calc.py", "def double(x):\n    return x * 2\n")],
          ],
        ),
      },
    })
    writeFileSync(join(project.dir, "calc.py"), "def double(x):\n    return x * 3\n")
    writeFileSync(join(project.dir, "test_calc.py"), TESTS)
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(loop).toMatchObject({ iteration: 2 })
    const second = prompts(project)[1]?.lastUser ?? ""
    expect(second).toContain("The completion claim was refused")
    expect(second).toContain("the test test_double was removed from test_calc.py:4: `def test_double():`")
    // pytest passed the claim (the test left passes even with the bug): the guard alone refused it.
    expect(second).not.toContain("FAILED")
  })

  it("ralph_done answers the guard's refusal in the same turn, and the turn's end refuses the claim too", async () => {
    const toolResult = (r: MockRequest): string => (r.lastRole === "tool" ? messageText(r.body.messages?.at(-1)) : "")
    const done = { name: "ralph_done", args: { summary: "The tests pass.", evidence: ["npm test: exit 0"] } }
    let project!: Project
    project = await harness().project("guard-done-tool", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 6 },
      script: {
        main: (r) => {
          if (isControl(r)) return { text: "OK" }
          if (/^(Rejected|Accepted)/.test(toolResult(r))) return { text: "Understood." }
          if (r.lastRole === "tool") return { toolCalls: [done] }
          return {
            toolCalls:
              prompts(project).length === 1
                ? [write("sum.test.js", TEST_SKIPPED)]
                : [write("sum.test.js", TEST), write("sum.js", SUM_FIXED)],
          }
        },
      },
    })
    jsProject(project)
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(loop).toMatchObject({ iteration: 2 })
    const answers = project
      .requests("main")
      .map(toolResult)
      .filter((t) => /^(Rejected|Accepted)/.test(t))
    expect(answers[0]).toMatch(/^Rejected/)
    expect(answers[0]).toContain("sum.test.js:4 skips or focuses a test (test.skip)")
    expect(answers[1]).toMatch(/^Accepted/)
    expect(prompts(project)[1]?.lastUser).toContain("The completion claim was refused")
  })

  it("a changed expectation is refused once; claimed again with it, the reviewer judges it", async () => {
    const isReview = (r: MockRequest) => r.system.includes("You review another coding agent's change")
    let project!: Project
    project = await harness().project("guard-expectation", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 6, review: true },
      script: {
        main: (r) => {
          if (isReview(r)) return { text: "<verdict>approve</verdict>" }
          return scripted(() => project, [[write("sum.test.js", TEST.replace("toBe(3)", "toBe(-1)"))]])(r)
        },
      },
    })
    jsProject(project)
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(loop).toMatchObject({ iteration: 2 })
    expect(prompts(project)[1]?.lastUser).toContain("you changed what they expect")
    const review = project.requests("main").find(isReview)?.lastUser ?? ""
    expect(review).toContain("## Expectations the agent changed in tests")
    expect(review).toContain(
      "- an expectation in sum.test.js:5 (adds two numbers) changed: `expect(add(1, 2)).toBe(3)` → `expect(add(1, 2)).toBe(-1)`",
    )
  })

  it("a loop that adds a test and fixes the code completes on that claim", async () => {
    let project!: Project
    project = await harness().project("guard-adds", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 6 },
      script: { main: scripted(() => project, [[write("sum.test.js", TEST_ADDED), write("sum.js", SUM_FIXED)]]) },
    })
    jsProject(project)
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(loop).toMatchObject({ iteration: 1 })
    expect(prompts(project)).toHaveLength(1)
  })
})
