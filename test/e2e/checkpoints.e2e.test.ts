// Checkpoints in the real OpenCode: a loop of three iterations leaves four private refs (the start
// and each iteration), /ralph-rollback puts the work tree back to one of them byte for byte without
// touching the user's branch, index or untracked files, and a rollback of the rollback restores
// the later state. A rollback never rewrites files under a turn: the loop's own, or another live
// loop's in the same project.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir, type Project } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { reportFile } from "../harness/loop-files.js"
import { waitUntil } from "../harness/wait.js"
import {
  sharedHarness,
  waitForFile,
  waitForLoopEnd,
  waitForStreamedText,
  waitForToast,
  harnessGitOutput,
} from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const git = harnessGitOutput(harness)
const read = (project: Project, path: string) => readFileSync(join(project.dir, path), "utf8")

/** Iteration n writes work.txt "version n" (iteration 2 also extra.txt), the third promises. */
function threeIterations(project: () => Project) {
  return (r: MockRequest): Reply => {
    if (isControl(r)) return { text: "OK" }
    const iteration = project()
      .requests("main")
      .filter((q) => q.lastRole === "user" && !isControl(q)).length
    if (r.lastRole === "tool")
      return { text: iteration >= 3 ? "All done. <promise>DONE</promise>" : `Iteration ${iteration} written.` }
    const writes = [
      {
        name: "write",
        args: { filePath: "work.txt", content: `version ${iteration}\n${"x".repeat(iteration * 10)}\n` },
      },
    ]
    if (iteration === 2)
      writes.push({ name: "write", args: { filePath: "extra.txt", content: "only in iteration 2 and later\n" } })
    return { toolCalls: writes }
  }
}

describe("checkpoints and /ralph-rollback", () => {
  it("3 iterations leave 4 refs; rollback to 1 restores its files byte for byte, the user's branch, index and untracked file untouched; a rollback of the rollback restores the later state", async () => {
    let project!: Project
    project = await harness().project("checkpoints", {
      pluginOptions: { strategy: "continue" },
      script: { main: threeIterations(() => project) },
    })
    // The user's own state: a staged edit and an untracked file of theirs.
    writeFileSync(join(project.dir, "README.md"), "# checkpoints\n\nstaged by the user\n")
    git(project, "add", "README.md")
    writeFileSync(join(project.dir, "notes.txt"), "my own notes, never committed\n")
    const branch = git(project, "rev-parse", "--abbrev-ref", "HEAD")
    const head = git(project, "rev-parse", "HEAD")
    const staged = git(project, "diff", "--cached")

    const session = await project.newSession()
    await project.command(session, "ralph", "write the work file three times")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const iteration1 = `version 1\n${"x".repeat(10)}\n`
    const refs = () => git(project, "for-each-ref", "--format=%(refname)", `refs/ralph/${session}/`).trim().split("\n")
    expect(refs().sort()).toEqual([0, 1, 2, 3].map((n) => `refs/ralph/${session}/${n}`))
    expect(git(project, "show", `refs/ralph/${session}/1:work.txt`)).toBe(iteration1)
    expect(git(project, "show", `refs/ralph/${session}/0:notes.txt`)).toBe("my own notes, never committed\n")
    expect(() => git(project, "show", `refs/ralph/${session}/1:.opencode/ralph-loop/journal.jsonl`)).toThrow()
    const later = read(project, "work.txt")
    // The report and /ralph-status name them.
    const named = `Checkpoints: 4 (0, 1, 2, 3) on refs/ralph/${session}/ — /ralph-rollback [N | --to-start] puts the work tree back`
    expect(await waitForFile(reportFile(project.dir, session))).toContain(named)
    await project.command(session, "ralph-status", "")
    expect(project.requests("main").filter(isControl).at(-1)?.lastUser).toContain(named)

    await project.command(session, "ralph-rollback", "1")
    const toast = await waitForToast(project, /^Ralph · rolled back to checkpoint 1/)
    expect(read(project, "work.txt")).toBe(iteration1)
    expect(existsSync(join(project.dir, "extra.txt"))).toBe(false)
    expect(toast.properties.message).toContain("The work tree is back at checkpoint 1.")
    const said = project.requests("main").filter(isControl).at(-1)?.lastUser ?? ""
    expect(said).toContain("Restored (1): work.txt")
    expect(said).toContain("Removed (1): extra.txt")
    expect(said).toContain("/ralph-rollback 4 undoes this")
    // The user's branch, HEAD, index and untracked file are as they were.
    expect(git(project, "rev-parse", "--abbrev-ref", "HEAD")).toBe(branch)
    expect(git(project, "rev-parse", "HEAD")).toBe(head)
    expect(git(project, "diff", "--cached")).toBe(staged)
    expect(read(project, "notes.txt")).toBe("my own notes, never committed\n")
    expect(git(project, "stash", "list")).toBe("")

    await project.command(session, "ralph-rollback", "4")
    await waitForToast(project, /^Ralph · rolled back to checkpoint 4/)
    expect(read(project, "work.txt")).toBe(later)
    expect(read(project, "extra.txt")).toBe("only in iteration 2 and later\n")
    expect(git(project, "diff", "--cached")).toBe(staged)
    expect(refs()).toHaveLength(6)

    // The CLI lists them; `clean` removes an ended loop's refs with its files.
    const cli = (...args: string[]) =>
      execFileSync(process.execPath, [join(packageDir(), "dist/cli/main.js"), ...args, "--project", project.dir], {
        encoding: "utf8",
        env: { ...process.env, HOME: harness().root },
      })
    const listed = cli("checkpoints")
    expect(listed).toMatch(new RegExp(`^${session} — write the work file three times \\(stopped: completed\\)$`, "m"))
    expect(listed).toMatch(/^ {4}0 {2}\S+ {2}before the loop\s*$/m)
    expect(listed).toMatch(/^ {4}1 {2}\S+ {2}iteration 1 +1 file changed · checks not run$/m)
    expect(listed).toMatch(/^ {4}2 {2}\S+ {2}iteration 2 +2 files changed/m)
    expect(listed).toMatch(/^ {4}4 {2}\S+ {2}saved before a rollback/m)
    // clean takes the project's lease, which the OpenCode running here holds: it runs while OpenCode is stopped.
    await harness().restartServer("SIGTERM", () => cli("clean", "--days", "0"))
    expect(git(project, "for-each-ref", "refs/ralph/")).toBe("")
  })

  it("a project that is not a git repository gets one notice and no checkpoints; /ralph-rollback says so", async () => {
    const project = await harness().project("no-git", {
      pluginOptions: { strategy: "continue" },
      script: { main: [{ text: "<promise>DONE</promise>" }] },
    })
    rmSync(join(project.dir, ".git"), { recursive: true, force: true })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task")
    await waitForToast(project, /^Ralph · no checkpoints/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    await project.command(session, "ralph-rollback", "")
    const said = project.requests("main").filter(isControl).at(-1)?.lastUser ?? ""
    expect(said).toContain("This loop has no checkpoints")
    expect(project.events.toasts().filter((t) => t.title === "Ralph · no checkpoints")).toHaveLength(1)
  })

  it("autoCommit: each story verified done is committed on the branch with its hooks, only the loop's files, as `story <id>: <title>`", async () => {
    const stories = {
      userStories: ["first", "second"].map((title, i) => ({
        id: `S-${i + 1}`,
        title,
        acceptanceCriteria: [`story-S-${i + 1}.txt exists`],
        priority: i + 1,
        passes: false,
      })),
    }
    const project = await harness().project("auto-commit", {
      pluginOptions: { strategy: "continue", autoCommit: true },
      script: {
        main: (r: MockRequest) => {
          if (isControl(r)) return { text: "OK" }
          const id = /^## Current story: (\S+)/m.exec(r.lastUser)?.[1]
          if (!id) return { text: "nothing to do" }
          return r.lastRole === "tool"
            ? { text: `Story ${id} is done. <promise>DONE</promise>` }
            : { toolCalls: [{ name: "write", args: { filePath: `story-${id}.txt`, content: `${id}\n` } }] }
        },
      },
    })
    writeFileSync(join(project.dir, ".opencode/prd.json"), `${JSON.stringify(stories, null, 2)}\n`)
    writeFileSync(join(project.dir, "notes.txt"), "mine, not the loop's\n")
    // The repository's own hook runs for each commit (no --no-verify).
    writeFileSync(
      join(project.dir, ".git/hooks/pre-commit"),
      `#!/bin/sh\necho ran >> "${join(project.dir, ".git/hook-runs")}"\n`,
      { mode: 0o755 },
    )
    git(project, "config", "user.name", "The User")
    git(project, "config", "user.email", "user@example.invalid")
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(git(project, "log", "--format=%s").trim().split("\n")).toEqual([
      "story S-2: second",
      "story S-1: first",
      "init",
    ])
    expect(git(project, "show", "--name-only", "--format=", "HEAD~1").trim()).toBe("story-S-1.txt")
    expect(git(project, "show", "--name-only", "--format=", "HEAD").trim()).toBe("story-S-2.txt")
    expect(read(project, ".git/hook-runs")).toBe("ran\nran\n")
    expect(git(project, "status", "--porcelain", "--", "notes.txt").trim()).toBe("?? notes.txt")
  })

  it("/ralph-rollback of a loop waiting out a usage limit: the start is restored, the loop is paused (its wait ended), and /ralph-resume goes on", async () => {
    const project = await harness().project("rollback-waiting", {
      pluginOptions: { strategy: "continue", notify: { desktop: false } },
      script: {
        main: (r: MockRequest): Reply => {
          if (isControl(r)) return { text: "OK" }
          if (r.index === 0)
            return {
              toolCalls: [{ name: "write", args: { filePath: "work.txt", content: "written by iteration 1\n" } }],
            }
          if (r.lastRole === "tool")
            return { error: { status: 400, message: "usage limit reached, resets in 2 hours" } }
          return { text: "<promise>DONE</promise>" }
        },
      },
    })
    writeFileSync(join(project.dir, "work.txt"), "before the loop\n")
    const session = await project.newSession()
    await project.command(session, "ralph", "a task that hits the usage limit")
    await waitForLoopEnd(project, { phase: "waiting", wait: "usage-limit" })
    expect(read(project, "work.txt")).toBe("written by iteration 1\n")

    await project.command(session, "ralph-rollback", "--to-start")
    await waitForToast(project, /^Ralph · rolled back to checkpoint 0/)
    expect(read(project, "work.txt")).toBe("before the loop\n")
    const [paused] = await waitForLoopEnd(project, { phase: "paused" })
    expect(paused).toMatchObject({ detail: "rolled back to checkpoint 0" })
    expect(paused!.wait).toBeUndefined()

    await project.command(session, "ralph-resume", "")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(loop).toMatchObject({ iteration: 1, retries: 0 })
    expect(project.requests("main").filter((r) => r.lastRole === "user" && !isControl(r))).toHaveLength(2)
  })

  it("/ralph-rollback of an ended loop while another loop of the project runs is refused: no file changes, no checkpoint is added", async () => {
    const secondTurn = gate()
    const project = await harness().project("rollback-other-loop", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest): Reply => {
          if (isControl(r)) return { text: "OK" }
          if (r.lastUser.includes("the second task"))
            return { text: "a slow reply that takes a while", holdAfterFirstChunk: secondTurn.opened }
          if (r.lastRole === "tool") return { text: "Written. <promise>DONE</promise>" }
          return {
            toolCalls: [{ name: "write", args: { filePath: "work.txt", content: "written by the first loop\n" } }],
          }
        },
      },
    })
    writeFileSync(join(project.dir, "work.txt"), "before the loops\n")
    const first = await project.newSession()
    await project.command(first, "ralph", "the first task")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const refs = () => git(project, "for-each-ref", "--format=%(refname)", `refs/ralph/${first}/`).trim().split("\n")
    expect(refs()).toEqual([`refs/ralph/${first}/0`, `refs/ralph/${first}/1`])

    const second = await project.newSession()
    void project.command(second, "ralph", "the second task").catch(() => undefined)
    await waitForStreamedText(project, /^a slow/)
    writeFileSync(join(project.dir, "work.txt"), "written during the second loop's turn\n")
    void project.command(first, "ralph-rollback", "--to-start").catch(() => undefined)
    const answer = await waitForToast(project, /^Ralph · (no rollback|rolled back)/)
    expect(answer.properties.title).toBe("Ralph · no rollback")
    expect(answer.properties.message).toContain(`Another Ralph loop of this project is running (in session ${second})`)
    expect(read(project, "work.txt")).toBe("written during the second loop's turn\n")
    expect(refs()).toEqual([`refs/ralph/${first}/0`, `refs/ralph/${first}/1`])

    secondTurn.open()
    void project.command(second, "cancel-ralph", "").catch(() => undefined)
    await waitUntil(
      () => project.loops().some((l) => l.sessionID === second && l.phase === "stopped"),
      "the second loop cancelled",
    )
    await project.waitForIdle()
  })

  it("/ralph-rollback while the model is mid-turn is refused, and nothing is restored", async () => {
    const turnOne = gate()
    const project = await harness().project("rollback-mid-turn", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : { text: "a slow reply that takes a while", holdAfterFirstChunk: turnOne.opened },
      },
    })
    writeFileSync(join(project.dir, "work.txt"), "before the loop\n")
    const session = await project.newSession()
    void project.command(session, "ralph", "a slow task").catch(() => undefined)
    await waitForStreamedText(project, /^a slow/)
    writeFileSync(join(project.dir, "work.txt"), "written during the turn\n")
    void project.command(session, "ralph-rollback", "--to-start").catch(() => undefined)
    const refused = await waitForToast(project, /^Ralph · no rollback/)
    expect(refused.properties.message).toContain("A turn of the loop is under way")
    expect(read(project, "work.txt")).toBe("written during the turn\n")
    expect(git(project, "for-each-ref", "--format=%(refname)", `refs/ralph/${session}/`).trim()).toBe(
      `refs/ralph/${session}/0`,
    )
    turnOne.open()
    void project.command(session, "cancel-ralph", "").catch(() => undefined)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "cancelled" })
  })
})
