// Seed 004 and seed 002 in the real OpenCode: a loop started with its criteria as flags completes
// when they hold after an iteration that changed the work tree, without a promise; the same check
// failing the same way (line numbers aside) opens the circuit breaker.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const prompts = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user" && !isControl(r))

/** Writes flag.txt in its first turn and says so, never promising. */
function flagWriter(r: MockRequest): Reply {
  if (isControl(r)) return { text: "OK" }
  if (r.lastRole === "tool") return { text: "I wrote flag.txt; checking the rest next." }
  if (r.index === 0 || !r.lastUser.includes("flag.txt"))
    return { toolCalls: [{ name: "write", args: { filePath: "flag.txt", content: "up\n" } }] }
  return { text: "Still looking around." }
}

describe("criteria met end the loop (seed 004)", () => {
  it("--check given on /ralph: the checks run before the first prompt, the loop completes after the iteration that made it pass, with the COMPLETE line counting from that first run, no promise needed", async () => {
    const project = await harness().project("criteria-met", {
      pluginOptions: { strategy: "continue" },
      script: { main: flagWriter },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", 'raise the flag --check "test -f flag.txt"')
    const done = await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(prompts(project)).toHaveLength(1)
    expect(done.properties.message).toContain(
      "finished in 1 iteration (every criterion holds after an iteration that changed the work tree — Ralph Loop: COMPLETE - All conditions satisfied | Session: ",
    )
    // `test -f flag.txt` failed before the loop began (a failing test check counts one failing test), and passes after iteration 1.
    expect(done.properties.message).toContain(
      "| Iterations: 1 | Total improvement: 100% | Initial: 0 errors, 0 warnings, 1 tests failing | Final: 0 errors, 0 warnings",
    )
  })

  it("checks from the settings file, not flags: the loop still waits for the promise", async () => {
    const project = await harness().project("criteria-settings", {
      configFile: JSON.stringify({
        strategy: "continue",
        maxIterations: 2,
        checks: [{ name: "flag", command: "test -f flag.txt", kind: "test" }],
      }),
      script: { main: flagWriter },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "raise the flag")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "max-iterations" })
    expect(prompts(project)).toHaveLength(2)
  })
})

describe("the same check failing the same way opens the breaker (seed 002)", () => {
  it("three claims in a row rejected by one tsc error that moves down the file: sameErrorThreshold 3 opens the breaker, naming the check", async () => {
    // Each run reports the error one line lower (an edit above it moves it), and writes its counter:
    // the work tree changes every iteration, so only the same-error rule can stop this loop.
    const types = {
      name: "types",
      kind: "typecheck",
      command: `n=$(cat .n 2>/dev/null || echo 0); n=$((n+1)); echo $n > .n; echo "src/a.ts($n,1): error TS2322: Type 'string' is not assignable to type 'number'."; exit 2`,
    }
    const project = await harness().project("same-check-error", {
      pluginOptions: {
        strategy: "continue",
        sameErrorThreshold: 3,
        noProgressThreshold: 100,
        stagnationLimit: 100,
        checks: [types],
      },
      script: {
        main: (r: MockRequest) => (isControl(r) ? { text: "OK" } : { text: "Fixed it. <promise>DONE</promise>" }),
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "make src/a.ts type-check")
    const [loop] = await waitForLoopEnd(project, { phase: "waiting", wait: "breaker" })
    expect(loop?.iteration).toBe(3)
    expect(loop?.breaker).toMatchObject({
      state: "OPEN",
      reason:
        "3 iterations in a row ended in the same error: checks failing: types: src/a.ts TS2322: Type 'string' is not assignable to type 'number'",
    })
    expect(prompts(project)).toHaveLength(3)
  })
})

describe("the handoff tells the truth about the checks", () => {
  it('iteration 1 ran no check (it changed nothing): iteration 2\'s handoff and the progress log name the check that failed before the first prompt, marked as that run — not "none"', async () => {
    const project = await harness().project("criteria-handoff", {
      pluginOptions: { strategy: "recreate", maxIterations: 2 },
      script: { main: (r: MockRequest) => (isControl(r) ? { text: "OK" } : { text: `Looking around (${r.index}).` }) },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", 'raise the flag --check "test -f flag.txt"')
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "max-iterations" })
    const second = prompts(project)[1]?.lastUser ?? ""
    expect(second).toMatch(/- Failing checks \(latest run, before the first prompt\):\n\s+- check 1 \(test\): failed/)
    const log = readFileSync(join(project.dir, ".opencode/ralph-loop/progress.md"), "utf8")
    expect(log).toContain("- Failing checks (latest run, before the first prompt): check 1 (failed)")
    expect(log).not.toContain("- Failing checks: none")
  })
})
