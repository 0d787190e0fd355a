// A worktree loop shares the project's memory and progress log, in the real OpenCode: the loop runs
// in the worktree's own instance, yet it is given what the project's memory.md holds (a
// /ralph-remember priority), and what it learns (a fixed check's lesson, a <remember> note, a
// <learning>) reaches the project's memory.md and progress.md — also when its branch is not merged.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { readWorktreeState } from "../../src/worktrees/worktree-file.js"
import { sharedHarness } from "./helpers.js"

const harness = sharedHarness()

const MEMORY = ".opencode/ralph-loop/memory.md"
const PROGRESS = ".opencode/ralph-loop/progress.md"
const textOf = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "")
const worktreeDir = (project: Project, name: string) => join(project.dir, ".opencode/ralph-loop/worktrees", name)
/** Requests of the main session (told what started, control prompts) are not the loop's. */
const isLoops = (r: MockRequest) =>
  r.lastUser.includes("task-wt") &&
  !r.lastUser.startsWith("A Ralph loop now runs") &&
  !r.lastUser.startsWith("[ralph-loop control]")

describe("worktree loops and the project memory", () => {
  it("a /ralph-remember priority written in the project before: the worktree loop's first prompt carries it", {
    timeout: 180_000,
  }, async () => {
    const project = await harness().project("worktree-memory-priority", {
      script: {
        main: (r: MockRequest): Reply => (isLoops(r) ? { text: "Done. <promise>DONE</promise>" } : { text: "OK" }),
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph-remember", "Use pnpm, never npm")
    expect(textOf(join(project.dir, MEMORY))).toMatch(/^- \d{4}-\d{2}-\d{2} · command · Use pnpm, never npm$/m)

    await project.command(session, "ralph", "--worktree prio-wt task-wt: write a haiku about autumn")
    await waitUntil(
      () =>
        readWorktreeState(worktreeDir(project, "prio-wt"))?.merge ??
        readWorktreeState(join(project.dir, ".opencode/ralph-loop/merged/prio-wt"))?.merge,
      "the worktree loop settled",
      120_000,
    )
    // Its first prompt, made in the worktree's instance, has the project's priority entry.
    const first = project.requests("main").find(isLoops)
    expect(first?.lastUser).toContain("Project memory (from .opencode/ralph-loop/memory.md")
    expect(first?.lastUser).toContain("- Use pnpm, never npm")
  })

  it("a worktree loop's fixed check (a lesson), <remember> note and progress entries reach the project's memory.md and progress.md, though its branch is kept", {
    timeout: 180_000,
  }, async () => {
    const reply = (r: MockRequest): Reply => {
      if (!isLoops(r)) return { text: "OK" }
      if (r.lastRole === "tool")
        return {
          text: "Fixed. <remember>src/a.js is plain JavaScript checked by tsc</remember>\n<learning>tsc checks src/a.js</learning>\n<promise>DONE</promise>",
        }
      if (r.lastUser.includes("the completion claim was rejected"))
        return { toolCalls: [{ name: "write", args: { filePath: "fixed.txt", content: "fixed\n" } }] }
      return { text: "Done. <promise>DONE</promise>" }
    }
    const project = await harness().project("worktree-memory-lesson", {
      pluginOptions: {
        strategy: "continue",
        // The branch is kept, not merged: what the loop learned must not depend on a merge.
        mergeStrategy: "none",
        checks: [
          {
            name: "types",
            kind: "typecheck",
            command: "test -f fixed.txt || (echo 'src/a.js(1,1): error TS2322: Type string is not assignable'; exit 2)",
          },
        ],
      },
      script: { main: reply },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "--worktree mem-wt task-wt: make src/a.js type-check")
    const merge = await waitUntil(
      () => readWorktreeState(worktreeDir(project, "mem-wt"))?.merge,
      "the worktree loop settled",
      120_000,
    )
    expect(merge.result).toBe("kept")

    // The project's memory.md has the fixed check's lesson and the note, promoted as the loop completed.
    const memory = await waitUntil(() => {
      const text = textOf(join(project.dir, MEMORY))
      return text.includes("check types failed on src/a.js") && text.includes("src/a.js is plain JavaScript") && text
    }, "the worktree loop's lesson and note in the project's memory.md")
    expect(memory).toMatch(
      /^- \d{4}-\d{2}-\d{2} · lesson · check types failed on src\/a\.js: src\/a\.js TS2322: Type string is not assignable — fixed in iteration 2 by changing fixed\.txt$/m,
    )
    expect(memory).toMatch(/^- \d{4}-\d{2}-\d{2} · remember · src\/a\.js is plain JavaScript checked by tsc$/m)
    expect(memory).not.toContain("staged")

    // Its iterations are in the project's progress log, with the learning among the patterns.
    const progress = await waitUntil(() => {
      const text = textOf(join(project.dir, PROGRESS))
      return text.includes("Outcome: completed") && text
    }, "the worktree loop's last entry in the project's progress.md")
    expect(progress).toContain("— task-wt: make src/a.js type-check")
    expect(progress).toMatch(/## Codebase Patterns\n- tsc checks src\/a\.js\n/)

    // The worktree kept no memory or progress log of its own.
    expect(existsSync(join(worktreeDir(project, "mem-wt"), MEMORY))).toBe(false)
    expect(existsSync(join(worktreeDir(project, "mem-wt"), PROGRESS))).toBe(false)
  })
})
