// The same-error breaker on what real test runners print, in the real OpenCode. The check replays,
// run after run, output that pytest and vitest printed themselves (test/fixtures/runners/, made by
// scripts/make-runner-fixtures.mjs): a pytest run that fails a different test each time is
// progress, never "the same error"; vitest failing the same test the same way (its timings differ
// from run to run) is the same error and opens the breaker within its threshold.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir, type Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { sharedHarness, toastTitles, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")

interface Run {
  file: string
  exitCode: number
}

/** The check's n-th call prints the n-th recorded run and exits with its code. */
const REPLAY =
  "n=$(( $(cat .opencode/replay/n 2>/dev/null || echo 0) + 1 )); echo $n > .opencode/replay/n; cat .opencode/replay/$n.txt; exit $(cat .opencode/replay/$n.code)"

const settings = (tool: string) =>
  JSON.stringify({ checks: [{ name: tool, kind: "test", command: REPLAY }], checkAfter: "iteration" })

/** Copies the runner's recorded runs into the project, in the order the check prints them. */
function recordedRuns(project: Project, tool: string, files: string[]): void {
  const fixtures = join(packageDir(), "test/fixtures/runners", tool)
  const runs = (JSON.parse(readFileSync(join(fixtures, "runs.json"), "utf8")) as { runs: Run[] }).runs
  const dir = join(project.dir, ".opencode/replay")
  mkdirSync(dir, { recursive: true })
  files.forEach((file, i) => {
    copyFileSync(join(fixtures, file), join(dir, `${i + 1}.txt`))
    writeFileSync(join(dir, `${i + 1}.code`), String(runs.find((r) => r.file === file)?.exitCode ?? 1))
  })
}

/** Each turn changes the work tree (so the checks run after it), and never claims completion. */
const worker = (r: MockRequest): Reply => {
  if (isControl(r)) return { text: "OK" }
  if (r.lastRole === "tool") return { text: "Changed the code; the tests will say." }
  return { toolCalls: [{ name: "write", args: { filePath: "work.txt", content: `attempt ${r.index}\n` } }] }
}

describe("the same-error breaker on real runners' output", () => {
  it("pytest failing a different test each iteration is progress: the breaker never opens, and the loop completes when the tests pass", async () => {
    const project = await harness().project("pytest-different", {
      configFile: settings("pytest"),
      pluginOptions: { strategy: "continue", sameErrorThreshold: 2, noProgressThreshold: 10, maxRetries: 10 },
      script: { main: worker },
    })
    recordedRuns(project, "pytest", [
      "different-1.txt",
      "different-2.txt",
      "different-3.txt",
      "different-4.txt",
      "pass-1.txt",
    ])
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass --tests-pass")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 100_000)
    expect(loop).toMatchObject({ stopReason: "completed", iteration: 4 })
    expect(toastTitles(project).filter((t) => /circuit breaker/.test(t))).toEqual([])
  })

  it("vitest failing the same test the same way (other timings) is the same error: the breaker opens at its threshold", async () => {
    const project = await harness().project("vitest-same", {
      configFile: settings("vitest"),
      pluginOptions: { strategy: "continue", sameErrorThreshold: 3, noProgressThreshold: 10, maxRetries: 10 },
      script: { main: worker },
    })
    recordedRuns(project, "vitest", [
      "same-1.txt",
      "same-2.txt",
      "same-1.txt",
      "same-2.txt",
      "same-1.txt",
      "same-2.txt",
    ])
    const session = await project.newSession()
    await project.command(session, "ralph", "make the tests pass --tests-pass")
    const open = await waitForToast(project, /circuit breaker OPEN/, 100_000)
    expect(String(open.properties.message)).toMatch(/3 iterations in a row ended in the same error/)
    const [loop] = await waitForLoopEnd(project, { phase: "waiting", wait: "breaker" })
    expect(loop).toMatchObject({ iteration: 3 })
  })
})
