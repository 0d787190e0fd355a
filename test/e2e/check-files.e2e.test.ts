// The files a check's output names, in the real OpenCode: a lint error outside the loop's @path
// targets does not block its completion (ESLint's stylish output with absolute paths, ruff's
// `path:line:col: CODE`), and a failing command check that names a file, fixed in the next
// iteration, becomes a lesson a later loop on that file is given.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { sharedHarness, waitForLoopEnd } from "./helpers.js"

const harness = sharedHarness()

const REJECTED = "the completion claim was rejected"
const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const prompts = (project: Project, task: string) =>
  project.requests("main").filter((r) => r.lastRole === "user" && !isControl(r) && r.lastUser.includes(task))

/** Claims done; after a rejection, writes `fixed.txt` first (which clears the check), then claims again. */
function claimer(r: MockRequest): Reply {
  if (isControl(r)) return { text: "OK" }
  if (r.lastRole === "tool") return { text: "Fixed. <promise>DONE</promise>" }
  if (r.lastUser.includes(REJECTED))
    return { toolCalls: [{ name: "write", args: { filePath: "fixed.txt", content: "fixed\n" } }] }
  return { text: "Done. <promise>DONE</promise>" }
}

/** A lint check that prints `lines` and fails until fixed.txt exists. */
const lint = (lines: string[]) => ({
  name: "lint",
  kind: "lint",
  command: `if [ -f fixed.txt ]; then exit 0; fi; printf '%s\\n' ${lines.map((l) => `"${l}"`).join(" ")}; exit 1`,
})

describe("lint errors scoped to the loop's @path targets by the files the linter names", () => {
  it.each([
    [
      "ESLint stylish (absolute paths)",
      ["$PWD/src/b.js", "  1:1  error  Missing semicolon  semi", "", "✖ 1 problem (1 error, 0 warnings)"],
      "src/a.js",
      "src/b.js",
    ],
    ["ruff", ["src/b.py:1:8: F401 [*] os imported but unused", "Found 1 error."], "src/a.py", "src/b.py"],
  ])("%s: an error in another file does not block; one in the target does", async (_tool, lines, target, broken) => {
    const project = await harness().project(`scope-${target.replace(/\W/g, "-")}`, {
      pluginOptions: { strategy: "continue", checks: [lint(lines)] },
      script: { main: claimer },
    })
    const outside = await project.newSession()
    await project.command(outside, "ralph", `@${target} tidy the target --zero-errors`)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(prompts(project, REJECTED)).toHaveLength(0)

    const inside = await project.newSession()
    await project.command(inside, "ralph", `@${broken} tidy the broken file --zero-errors`)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 2)
    const rejected = prompts(project, REJECTED)
    expect(rejected).toHaveLength(1)
    expect(rejected[0]!.lastUser).toContain("1 error(s)")
  })
})

describe("a check failure fixed within a loop becomes a lesson", () => {
  it("a command check naming a file, fixed in the next iteration of a continue loop: memory.md has the lesson, and a later loop on that file is given it", async () => {
    const project = await harness().project("lesson-command-check", {
      pluginOptions: {
        strategy: "continue",
        checks: [
          {
            name: "ajs-present",
            command: "test -f src/a.js || (echo 'src/a.js: error: file missing' && exit 1)",
            kind: "test",
          },
        ],
      },
      script: {
        main: (r: MockRequest) => {
          if (isControl(r)) return { text: "OK" }
          if (r.lastRole === "tool") return { text: "Written. <promise>DONE</promise>" }
          if (r.lastUser.includes(REJECTED))
            return { toolCalls: [{ name: "write", args: { filePath: "src/a.js", content: "export const a = 1\n" } }] }
          return { text: "Done. <promise>DONE</promise>" }
        },
      },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "create the module a")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(prompts(project, REJECTED)).toHaveLength(1)
    const memory = join(project.dir, ".opencode/ralph-loop/memory.md")
    await waitUntil(
      () => existsSync(memory) && readFileSync(memory, "utf8").includes("ajs-present"),
      "the lesson in memory.md",
    )
    expect(readFileSync(memory, "utf8")).toMatch(
      /^- \d{4}-\d{2}-\d{2} · lesson · check ajs-present failed on src\/a\.js: src\/a\.js: error: file missing — fixed in iteration 2 by changing src\/a\.js$/m,
    )

    const later = await project.newSession()
    await project.command(later, "ralph", "refactor src/a.js")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 2)
    expect(prompts(project, "refactor src/a.js")[0]!.lastUser).toContain("- check ajs-present failed on src/a.js")
  })
})
