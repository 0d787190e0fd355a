// Project memory in the real OpenCode: what one loop learns, the next loop knows.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import type { MockRequest } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const MEMORY = ".opencode/ralph-loop/memory.md"
const memoryText = (project: Project) =>
  existsSync(join(project.dir, MEMORY)) ? readFileSync(join(project.dir, MEMORY), "utf8") : ""
const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
/** The first model request of the loop whose task is `task`. */
function firstRequestOf(project: Project, task: string): MockRequest {
  const request = project.requests("main").find((r) => r.lastUser.startsWith(task))
  if (!request) throw new Error(`no request starts with "${task}"`)
  return request
}

describe("project memory", () => {
  it("<remember priority> in one loop: a later loop in another session gets it in its first request; memory.md has it under Priority", async () => {
    const project = await harness().project("memory-priority", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest) =>
          r.lastUser.startsWith("set up the build")
            ? { text: "Set up. <remember priority>Use pnpm, never npm</remember> <promise>DONE</promise>" }
            : { text: "Done. <promise>DONE</promise>" },
      },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "set up the build")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    // Staged while the loop ran; promoted to Priority when it completed.
    const priority = () =>
      memoryText(project).slice(
        memoryText(project).indexOf("\n## Priority"),
        memoryText(project).indexOf("\n## Working memory"),
      )
    await waitUntil(
      () => /^- \d{4}-\d{2}-\d{2} · remember · Use pnpm, never npm$/m.test(priority()),
      "the priority entry in the memory file",
    )
    expect(memoryText(project)).not.toContain("staged")

    const second = await project.newSession()
    await project.command(second, "ralph", "add a lint script")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 2)
    const request = firstRequestOf(project, "add a lint script")
    expect(request.lastUser).toContain("Project memory (from .opencode/ralph-loop/memory.md")
    expect(request.lastUser).toContain("- Use pnpm, never npm")
    // The first loop's own first request had nothing to be given yet.
    expect(firstRequestOf(project, "set up the build").lastUser).not.toContain("Project memory")
  })

  it("a failing check fixed before the end becomes a lesson: a loop on the same file gets it (and, when the failure is back, a circular fix across loops), an unrelated loop does not", async () => {
    const project = await harness().project("memory-lesson", {
      pluginOptions: {
        strategy: "continue",
        checks: [
          {
            name: "types",
            kind: "typecheck",
            command: "test -f fixed.txt || (echo 'src/a.js(1,1): error TS2322: Type string is not assignable'; exit 2)",
          },
        ],
      },
      script: {
        main: (r: MockRequest) => {
          if (r.lastRole === "tool") return { text: "Fixed. <promise>DONE</promise>" }
          if (r.lastUser.includes("the completion claim was rejected"))
            return { toolCalls: [{ name: "write", args: { filePath: "fixed.txt", content: "fixed\n" } }] }
          return { text: "Done. <promise>DONE</promise>" }
        },
      },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "make src/a.js type-check")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    await waitUntil(
      () => memoryText(project).includes("check types failed on src/a.js"),
      "the lesson in the memory file",
    )
    expect(memoryText(project)).toMatch(
      /^- \d{4}-\d{2}-\d{2} · lesson · check types failed on src\/a\.js: src\/a\.js TS2322: Type string is not assignable — fixed in iteration 2 by changing fixed\.txt$/m,
    )

    // The fix is undone: the next loop on src/a.js is given the lesson, and when the same check fails
    // there again, its next prompt names the circular fix across loops.
    rmSync(join(project.dir, "fixed.txt"))
    const related = await project.newSession()
    await project.command(related, "ralph", "refactor @src/a.js into smaller functions")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 2)
    expect(firstRequestOf(project, "refactor @src/a.js").lastUser).toContain("- check types failed on src/a.js")
    const again = project
      .requests("main")
      .filter((r) => r.lastUser.includes("the completion claim was rejected"))
      .at(-1)
    expect(again?.lastUser).toContain("circular fix across loops: an earlier loop")

    const unrelated = await project.newSession()
    await project.command(unrelated, "ralph", "write a haiku about autumn")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 3)
    expect(firstRequestOf(project, "write a haiku").lastUser).not.toContain("check types failed")
    expect(firstRequestOf(project, "write a haiku").lastUser).not.toContain("Project memory")
  })

  it("a loop's <remember> notes are staged while it runs, become working memory when it completes, and stay unverified when it is cancelled", async () => {
    const project = await harness().project("memory-staging", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest) => {
          if (isControl(r)) return { text: "OK" }
          if (r.lastUser.startsWith("index the parser"))
            return {
              text: "Indexed. <remember>src/parser.ts needs a trailing newline in its input</remember> <promise>DONE</promise>",
            }
          if (r.lastUser.startsWith("tune the cache"))
            return { text: "Tried something. <remember>src/cache.ts is faster without the lock</remember>" }
          return { text: `Still trying (${r.index}).` }
        },
      },
    })
    const staging = () => memoryText(project).slice(memoryText(project).indexOf("\n## Staging"))
    const working = () =>
      memoryText(project).slice(
        memoryText(project).indexOf("\n## Working memory"),
        memoryText(project).indexOf("\n## Staging"),
      )

    const first = await project.newSession()
    await project.command(first, "ralph", "index the parser")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    await waitUntil(
      () => working().includes("remember · src/parser.ts needs a trailing newline in its input"),
      "the note promoted to working memory",
    )
    expect(memoryText(project)).not.toMatch(/staged .* src\/parser\.ts/)

    const second = await project.newSession()
    await project.command(second, "ralph", "tune the cache")
    await waitUntil(
      () => /^- \d{4}-\d{2}-\d{2} · staged \S+ · src\/cache\.ts is faster without the lock$/m.test(staging()),
      "the note staged for the running loop",
    )
    expect(working()).not.toContain("src/cache.ts")
    await project.command(second, "cancel-ralph", "")
    const ended = (session: string, reason: string) => () =>
      project.loops().some((l) => l.id === session && l.phase === "stopped" && l.stopReason === reason)
    await waitUntil(ended(second, "cancelled"), "the second loop cancelled")
    await waitUntil(
      () => /^- \d{4}-\d{2}-\d{2} · unverified \S+ · src\/cache\.ts is faster without the lock$/m.test(staging()),
      "the note marked unverified",
    )
    expect(working()).not.toContain("src/cache.ts")
    // An unverified note is given to no later loop, even one on its file.
    const third = await project.newSession()
    await project.command(third, "ralph", "index the parser again in src/cache.ts")
    await waitUntil(ended(third, "completed"), "the third loop completed")
    await project.waitForIdle()
    expect(firstRequestOf(project, "index the parser again").lastUser).not.toContain("faster without the lock")
  })

  it("/ralph-remember adds a priority entry; /ralph-memory clear empties the working memory and leaves ## Manual byte for byte", async () => {
    const manual =
      "## Manual\n\nMy own rules:\n  * never touch `vendor/`\n\n```\n## Working memory\n- not an entry\n```\n"
    const project = await harness().project("memory-clear", {
      script: { main: (r: MockRequest) => (isControl(r) ? { text: "OK" } : { text: "hello" }) },
    })
    mkdirSync(join(project.dir, ".opencode/ralph-loop"), { recursive: true })
    writeFileSync(
      join(project.dir, MEMORY),
      `## Priority\n\n## Working memory\n\n- 2026-11-01 · lesson · an old lesson\n- my own working note\n\n${manual}`,
    )
    const session = await project.newSession()
    await project.command(session, "ralph-remember", "Run the tests with npm test")
    expect(memoryText(project)).toMatch(/^- \d{4}-\d{2}-\d{2} · command · Run the tests with npm test$/m)
    await project.command(session, "ralph-memory", "")
    const shown = project.requests("main").filter(isControl).at(-1)?.lastUser ?? ""
    expect(shown).toContain("Priority: 1 entry")
    expect(shown).toContain("Working memory: 2 entries")

    await project.command(session, "ralph-memory", "clear")
    const after = memoryText(project)
    expect(after.endsWith(manual)).toBe(true)
    expect(after).not.toContain("an old lesson")
    expect(after).not.toContain("my own working note")
    expect(after).toContain("Run the tests with npm test")
    expect(project.requests("main").filter(isControl).at(-1)?.lastUser).toContain(
      "the Manual section are kept as they were",
    )
  })

  it("a hand-broken memory.md does not stop a loop: it is moved aside with one message naming the file", async () => {
    const project = await harness().project("memory-broken", {
      pluginOptions: { strategy: "continue" },
      script: { main: [{ text: "working" }, { text: "<promise>DONE</promise>" }] },
    })
    mkdirSync(join(project.dir, ".opencode/ralph-loop"), { recursive: true })
    writeFileSync(join(project.dir, MEMORY), "{ this was never markdown\n")
    const session = await project.newSession()
    await project.command(session, "ralph", "a task in two turns")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const moved = project.events.toasts().filter((t) => t.title === "Ralph · memory file moved aside")
    expect(moved).toHaveLength(1)
    expect(moved[0]?.message).toContain(".opencode/ralph-loop/memory.md has none of the headings")
    expect(project.requests("main")).toHaveLength(2)
  })
})
