// Completion the plugin verifies itself, in the real OpenCode: checks run on a completion claim,
// a failing one rejects it and goes into the next prompt, stagnation stops, a report is written.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import type { MockRequest } from "../harness/mock-model.js"
import { reportFile } from "../harness/loop-files.js"
import { waitUntil } from "../harness/wait.js"
import { PROGRESS_EXCERPT_CHARS } from "../../src/store/progress-log.js"
import { selectedSessions, sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const prompted = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user")
/** ralph_report.md of an ended loop, once written. */
async function report(project: Project, loopID: string): Promise<string> {
  const file = reportFile(project.dir, loopID)
  await waitUntil(() => existsSync(file), `the report ${file}`)
  return readFileSync(file, "utf8")
}

describe("checks", () => {
  it("a claim the checks reject goes on with the failure output; once fixed, the promise is accepted and the report written", async () => {
    const project = await harness().project("marker-check", {
      pluginOptions: {
        strategy: "continue",
        checks: [
          { name: "marker", kind: "test", command: "test -f done.txt || (echo 'FAIL: done.txt is missing'; exit 1)" },
        ],
      },
      script: {
        main: (r: MockRequest) => {
          if (r.lastRole === "tool") return { text: "Wrote done.txt. <promise>DONE</promise>" }
          if (r.lastUser.includes("done.txt is missing"))
            return { toolCalls: [{ name: "write", args: { filePath: "done.txt", content: "ok\n" } }] }
          return { text: "All done already. <promise>DONE</promise>" }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "create done.txt")
    const done = await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    const [first, second] = prompted(project)
    expect(prompted(project)).toHaveLength(2)
    expect(first?.lastUser).toContain("create done.txt")
    expect(second?.lastUser).toContain(
      "Ralph Loop: CONTINUE | Iteration 2/6 | 1 test(s) failing | Progress: first check run",
    )
    expect(second?.lastUser).toContain("the completion claim was rejected")
    expect(second?.lastUser).toContain("FAIL: done.txt is missing")
    expect(done.properties.message).toContain("the promise was kept and the checks pass")
    const text = await report(project, session)
    expect(text).toContain("- Ended: completed")
    expect(text).toMatch(/\| 1 \| 0 \| 0 \| 0 \| 1 \/ 1 \| 1 \| marker: failed \|/)
    expect(text).toMatch(/\| 2 \| 0 \| 0 \| 0 \| 0 \/ 0 \| 0 \| marker: passed \|/)
    expect(text).toContain("done.txt")
  })

  it.each([false, true])("warnings block completion only with zeroWarnings (zeroWarnings %s)", async (zeroWarnings) => {
    const project = await harness().project(`warnings-${zeroWarnings}`, {
      pluginOptions: {
        strategy: "continue",
        zeroWarnings,
        maxRetries: 1,
        checks: [{ name: "lint", kind: "lint", command: "echo 'src/a.ts:1:1: warning prefer-const'" }],
      },
      script: { main: [{ text: "<promise>DONE</promise>" }, { text: "still <promise>DONE</promise>" }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "lint-clean code")
    await waitForToast(project, zeroWarnings ? /retry limit/ : /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: zeroWarnings ? "retries-exhausted" : "completed" })
    expect(prompted(project)).toHaveLength(zeroWarnings ? 2 : 1)
    if (zeroWarnings) expect(prompted(project)[1]?.lastUser).toContain("| 1 warning(s) |")
  })

  it("a check that exits 1 on a warning alone keeps the loop from completing (zeroWarnings off: the exit decides)", async () => {
    const project = await harness().project("failed-on-warning", {
      pluginOptions: {
        strategy: "continue",
        maxRetries: 1,
        checks: [{ name: "lint", kind: "lint", command: "echo 'src/a.ts:1:1: warning prefer-const'; exit 1" }],
      },
      script: { main: [{ text: "<promise>DONE</promise>" }, { text: "still <promise>DONE</promise>" }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "lint-clean code")
    await waitForToast(project, /retry limit/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "retries-exhausted" })
    expect(prompted(project)).toHaveLength(2)
    expect(prompted(project)[1]?.lastUser).toContain('| check "lint" failed (exit 1) |')
  })

  it("stagnation: issues that do not fall for stagnationLimit check runs stop the loop with the reason", async () => {
    const project = await harness().project("stagnation", {
      pluginOptions: {
        strategy: "continue",
        stagnationLimit: 2,
        maxRetries: 10,
        checks: [{ name: "types", kind: "typecheck", command: 'echo "src/a.ts(1,1): error TS2322: nope"; exit 2' }],
      },
      script: { main: (r: MockRequest) => ({ text: `attempt ${"x".repeat(r.index + 1)} <promise>DONE</promise>` }) },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "fix the types")
    const stop = await waitForToast(project, /no progress on the checks/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "stagnation" })
    expect(stop.properties.message).toContain(
      "2 check runs in a row without fewer issues (stagnationLimit); still: 1 error(s)",
    )
    expect(prompted(project)).toHaveLength(3)
    const text = await report(project, session)
    expect(text).toContain("- Ended: stagnation")
    expect(text).toContain("- types: src/a.ts(1,1): error TS2322: nope (iteration 3; src/a.ts)")
    // The progress journal has a line per decided iteration, with its checks, tokens and duration.
    const journalLines = () =>
      readFileSync(join(project.dir, ".opencode/ralph-loop/journal.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
    // The journal is appended beside the state file: its lines of the stop may land a moment later.
    const journal = await waitUntil(
      () => journalLines().some((e) => e.event === "stopped:stagnation") && journalLines(),
      "the stop in the journal",
    )
    const records = journal.filter((e) => e.event === "decided").map((e) => e.record)
    expect(records).toHaveLength(3)
    expect(records[0]).toMatchObject({ decision: "restart", checks: { errors: 1 }, tokens: expect.any(Number) })
    expect(records.at(-1)).toMatchObject({ decision: "stop" })
  })

  it("a check that hangs is killed at its timeout and reported; a missing tool is reported, not crashed on", async () => {
    const project = await harness().project("bad-checks", {
      pluginOptions: {
        strategy: "continue",
        maxRetries: 1,
        checks: [
          { name: "hangs", kind: "test", command: "sleep 60", timeoutSeconds: 1 },
          { name: "missing", kind: "lint", command: "definitely-not-a-tool-xyz ." },
        ],
      },
      script: { main: [{ text: "<promise>DONE</promise>" }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "anything")
    const timeout = await waitForToast(project, /check timed out/)
    const missing = await waitForToast(project, /check could not run/)
    await waitForToast(project, /retry limit/)
    expect(timeout.properties.message).toContain("hangs: sleep 60 — killed after 1 s")
    expect(missing.properties.message).toContain("command not found")
    const second = prompted(project)[1]?.lastUser ?? ""
    expect(second).toContain('check "hangs" timed out and was killed')
    expect(second).toContain('check "missing" could not run: its command was not found')
    const { error } = await project.client.config.get()
    expect(error).toBeUndefined()
  })
})

describe("handoff and memory", () => {
  it("the restart prompt carries goal, failing check, open todo and changed files the summary left out, at the same size at iteration 10 as at 5 (the progress log filled in)", async () => {
    let project!: Project
    project = await harness().project("handoff", {
      pluginOptions: {
        maxRetries: 10,
        checkAfter: "iteration",
        stagnationLimit: 50,
        noProgressThreshold: 50,
        // The same check fails the same way every iteration: the breaker must not stop it before 10.
        sameErrorThreshold: 50,
        checks: [
          { name: "marker", kind: "test", command: "test -f never.txt || (echo 'FAIL: never.txt is missing'; exit 1)" },
        ],
      },
      script: {
        main: (r: MockRequest) =>
          r.lastRole === "tool"
            ? { text: `did some work ${"w".repeat(prompted(project).length)}` }
            : {
                toolCalls: [
                  {
                    name: "todowrite",
                    args: {
                      todos: [{ content: "document the widget API", status: "pending", priority: "high", id: "t1" }],
                    },
                  },
                  {
                    name: "write",
                    args: { filePath: "src/widget.ts", content: `export const step = ${prompted(project).length}\n` },
                  },
                ],
              },
        compaction: [{ text: "SUMMARY: worked on it." }],
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "build the widget library")
    await harness().mock.waitFor(() => prompted(project).length >= 10, 90_000, "iteration 10")
    await project.command(selectedSessions(project).at(-1)!, "cancel-ralph", "")

    const [second, fifth, tenth] = [prompted(project)[1]!, prompted(project)[4]!, prompted(project)[9]!]
    for (const prompt of [second, tenth]) {
      expect(prompt.lastUser).toContain("SUMMARY: worked on it.")
      expect(prompt.lastUser).toContain("Goal: build the widget library")
      expect(prompt.lastUser).toMatch(
        /Failing checks \(latest run, iteration \d+\):\n\s+- marker \(test\): failed — FAIL: never.txt is missing/,
      )
      expect(prompt.lastUser).toMatch(/Open todos:\n\s+- document the widget API/)
      expect(prompt.lastUser).toMatch(/Files changed since the loop began:\n\s+- src\/widget.ts/)
    }
    expect(tenth.lastUser).toMatch(/iteration 10 of 11/)
    // The progress log's newest entries (EXCERPT_ENTRIES of them) fill the handoff over the first
    // restarts, within PROGRESS_EXCERPT_CHARS; from then on the prompt stays the same size.
    expect(tenth.lastUser).toMatch(
      /## Progress log \(.opencode\/ralph-loop\/progress.md\)\nNewest entries:\n### .* · iteration 7\n/,
    )
    expect(tenth.lastUser.length - second.lastUser.length).toBeLessThan(PROGRESS_EXCERPT_CHARS)
    const ratio = tenth.lastUser.length / fifth.lastUser.length
    expect(ratio).toBeGreaterThan(0.8)
    expect(ratio).toBeLessThan(1.2)
    expect(tenth.bytes / second.bytes).toBeLessThan(1.2)
  })

  it("a failure that comes back after being fixed (A → B → A) is named as circular in the next prompt", async () => {
    let project!: Project
    const states = ["fixB", "fixA", "fixB"]
    project = await harness().project("circular", {
      pluginOptions: {
        strategy: "continue",
        checkAfter: "iteration",
        noProgressThreshold: 20,
        checks: [
          { name: "A", kind: "test", command: "grep -q fixA state.txt || (echo 'FAIL A: state is wrong'; exit 1)" },
          { name: "B", kind: "test", command: "grep -q fixB state.txt || (echo 'FAIL B: state is wrong'; exit 1)" },
        ],
      },
      script: {
        main: (r: MockRequest) => {
          if (r.lastRole === "tool") return { text: `changed the state ${"s".repeat(prompted(project).length)}` }
          const n = prompted(project).length
          return n <= states.length
            ? { toolCalls: [{ name: "write", args: { filePath: "state.txt", content: `${states[n - 1]}\n` } }] }
            : { text: "looking" }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "make both checks pass")
    await harness().mock.waitFor(() => prompted(project).length >= 4, 60_000, "the fourth prompt")
    await project.command(session, "cancel-ralph", "")
    const fourth = prompted(project)[3]!.lastUser
    expect(fourth).toContain("Circular fix: these failures were fixed before and are back")
    expect(fourth).toContain("A: FAIL A: state is wrong")
    // Seed 001's memory: the failing checks became gotchas that the continue prompt repeats.
    expect(fourth).toContain("## Gotchas from earlier failures on these files")
    expect(fourth).toMatch(/- B: FAIL B: state is wrong \(iteration \d\)/)
    expect(prompted(project)[2]!.lastUser).not.toContain("Circular fix")
  })
})
