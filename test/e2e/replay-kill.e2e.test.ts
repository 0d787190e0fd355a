// A kill during a replay (issue 46), in the real OpenCode: OpenCode is SIGKILLed once the replay tree
// is made, before its checks run. The user's work tree, index and HEAD are as the model left them;
// OpenCode started again takes the loop back, the replay runs again and refuses the claim, and the
// tree the killed process left in the temp folder is swept.
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, onTestFinished } from "vitest"
import { packageDir, type Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { harnessGitOutput, ralphCli, sharedHarness, waitForLoopEnd } from "./helpers.js"

const harness = sharedHarness({ env: { RALPH_LOOP_FAULT_INJECTION: "1" } })
const git = harnessGitOutput(harness)

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const prompts = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user" && !isControl(r))
const write = (filePath: string, content: string) => ({ name: "write", args: { filePath, content } })

const SUM_BUGGY = "export const add = (a, b) => a - b\n"
const SUM_FIXED = "export const add = (a, b) => a + b\n"
const TEST =
  'import { expect, test } from "vitest"\nimport { add } from "../src/sum.js"\n\n' +
  'test("adds two numbers", () => {\n  expect(add(1, 2)).toBe(3)\n})\n'
const WEAKENED = TEST.replace("toBe(3)", "toBe(-1)")

describe("a kill during the replay of the start's tests", () => {
  it("leaves the work tree, the index and HEAD as they were; started again, the replay refuses the claim", async () => {
    const h = harness()
    let project!: Project
    project = await h.project("replay-kill", {
      pluginOptions: { strategy: "continue", checks: [{ name: "unit", kind: "test", command: "npm test" }] },
      configFileName: "ralph-loop-faults.json",
      configFile: JSON.stringify({ calls: {}, crash: { at: "replay.running" } }),
      script: {
        main: (r: MockRequest): Reply => {
          if (isControl(r)) return { text: "OK" }
          if (r.lastRole === "tool") return { text: "Done. <promise>DONE</promise>" }
          const first = prompts(project).length <= 1
          return {
            toolCalls: first
              ? [write("test/sum.test.js", WEAKENED)]
              : [write("test/sum.test.js", TEST), write("src/sum.js", SUM_FIXED)],
          }
        },
      },
    })
    onTestFinished(() => project.close())
    const pkg = { name: "killed", private: true, type: "module", scripts: { test: "vitest run" } }
    writeFileSync(join(project.dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`)
    writeFileSync(join(project.dir, ".gitignore"), "node_modules/\n")
    mkdirSync(join(project.dir, "src"))
    mkdirSync(join(project.dir, "test"))
    writeFileSync(join(project.dir, "src", "sum.js"), SUM_BUGGY)
    writeFileSync(join(project.dir, "test", "sum.test.js"), TEST)
    mkdirSync(join(project.dir, "node_modules", ".bin"), { recursive: true })
    symlinkSync(join(packageDir(), "node_modules", "vitest"), join(project.dir, "node_modules", "vitest"))
    symlinkSync(
      join(packageDir(), "node_modules", "vitest", "vitest.mjs"),
      join(project.dir, "node_modules", ".bin", "vitest"),
    )
    const gitState = () => ({
      head: git(project, "rev-parse", "HEAD"),
      index: git(project, "ls-files", "-s"),
      status: git(project, "status", "--porcelain", "--", ".", ":(exclude).opencode"),
    })
    const before = gitState()

    const crashed = h.server
    const session = await project.newSession()
    void project.command(session, "ralph", "make the tests pass").catch(() => undefined)
    expect(await crashed.exited(120_000)).toBe("SIGKILL")
    expect(readFileSync(join(project.dir, ".opencode/ralph-loop-crashed"), "utf8").trim()).toBe("replay.running")
    // The replay's tree was made (outside the project); the project is as the model's write left it.
    const tmp = join(h.root, "tmp")
    const left = readdirSync(tmp).filter((n) => n.startsWith(`ralph-replay-${crashed.pid}-`))
    expect(left).toHaveLength(1)
    expect(readFileSync(join(project.dir, "test", "sum.test.js"), "utf8")).toBe(WEAKENED)
    expect(readFileSync(join(project.dir, "src", "sum.js"), "utf8")).toBe(SUM_BUGGY)
    // Nothing of git's was written: HEAD, the index (no temporary one took its place), the status.
    expect(gitState()).toEqual(before)

    await h.restartServer("SIGKILL")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
    expect(loop?.iteration).toBe(2)
    // Taken back, the claim was judged again: the replay refused the changed expectation once.
    expect(prompts(project).at(-1)?.lastUser).toContain("you changed what they expect")
    expect(readdirSync(tmp).filter((n) => n.startsWith(`ralph-replay-${crashed.pid}-`))).toEqual([])
    const status = await ralphCli(project.dir, ["status", "--json"])
    expect(
      (JSON.parse(status.stdout) as { selected: { evidence: { verified: boolean } } }).selected.evidence.verified,
    ).toBe(true)
    expect(git(project, "rev-parse", "HEAD")).toBe(before.head)
    expect(git(project, "ls-files", "-s")).toBe(before.index)
  })
})
