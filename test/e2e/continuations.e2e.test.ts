// The other continuations outside /ralph and the feature switches, in the real OpenCode: the
// "ralph:" keyword starts a loop exactly as /ralph does; auto-continue (off by default) continues a
// turn that changed files while the fast checks fail; completionMarkers end a loop like the
// promise; system-prompt and tool-guard can be switched off.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, onTestFinished } from "vitest"
import type { Project, ProjectOptions } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { sharedHarness, toastTitles, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness({ env: { RALPH_LOOP_DEBUG: "1" } })

async function prompt(project: Project, sessionID: string, text: string): Promise<void> {
  const { error } = await project.client.session.prompt({
    path: { id: sessionID },
    body: { parts: [{ type: "text", text }] },
  })
  if (error) throw new Error(JSON.stringify(error))
}

async function userTexts(project: Project, sessionID: string): Promise<string[]> {
  const { data } = await project.client.session.messages({ path: { id: sessionID } })
  return (data ?? [])
    .filter((m) => m.info.role === "user")
    .map((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")).join(""))
}

const waitForLog = (text: string, timeoutMs = 30_000) =>
  waitUntil(
    () => harness().server.output().includes(text),
    `the log line "${text}"`,
    timeoutMs,
    () => harness().server.output().slice(-1_500),
  )

async function project(name: string, options: ProjectOptions): Promise<Project> {
  const p = await harness().project(name, options)
  onTestFinished(() => p.close())
  return p
}

const control = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")

describe("keyword", () => {
  it("`ralph: write hello.txt` starts a loop as `/ralph write hello.txt` does: same prompts, same toasts", async () => {
    const script = (dir: () => string) => ({
      main: (r: MockRequest): Reply =>
        r.lastRole === "tool"
          ? { text: "hello.txt is written. <promise>DONE</promise>" }
          : { toolCalls: [{ name: "write", args: { filePath: join(dir(), "hello.txt"), content: "hello\n" } }] },
    })
    let typedDir = ""
    let commandDir = ""
    const typed = await project("keyword-typed", {
      pluginOptions: { strategy: "continue" },
      script: script(() => typedDir),
    })
    typedDir = typed.dir
    const command = await project("keyword-command", {
      pluginOptions: { strategy: "continue" },
      script: script(() => commandDir),
    })
    commandDir = command.dir

    const a = await typed.newSession()
    await prompt(typed, a, "ralph: write hello.txt")
    const b = await command.newSession()
    await command.command(b, "ralph", "write hello.txt")
    const [typedLoop] = await waitForLoopEnd(typed, { phase: "stopped", stopReason: "completed" })
    const [commandLoop] = await waitForLoopEnd(command, { phase: "stopped", stopReason: "completed" })
    // The done toast is each loop's last; it comes after the stop is saved, so it is waited for.
    await waitForToast(typed, /^Ralph · done/)
    await waitForToast(command, /^Ralph · done/)

    expect(typedLoop).toMatchObject({ task: "write hello.txt", sessionID: a, iteration: 1 })
    expect(commandLoop).toMatchObject({ task: "write hello.txt", sessionID: b, iteration: 1 })
    const first = (p: Project) => p.requests("main")[0]
    expect(first(typed)?.lastUser).toBe(first(command)?.lastUser)
    expect(first(typed)?.lastUser).toMatch(/^write hello\.txt\n*When the task is completely done/)
    expect(first(typed)?.system).toContain("Ralph loop mode")
    expect(toastTitles(typed)).toEqual(toastTitles(command))
    expect(toastTitles(typed)).toContain("Ralph · done")
    expect(readFileSync(join(typed.dir, "hello.txt"), "utf8")).toBe("hello\n")
  })

  it("with the keyword switched off, `ralph: …` is just a message", async () => {
    const off = await project("keyword-off", {
      pluginOptions: { disabledFeatures: ["keyword"] },
      script: { main: [{ text: "sure" }] },
    })
    const session = await off.newSession()
    await prompt(off, session, "ralph: write hello.txt")
    await off.waitForIdle()
    expect(off.loops()).toEqual([])
    expect(off.requests("main").map((r) => r.lastUser)).toEqual(["ralph: write hello.txt"])
    expect(toastTitles(off)).toEqual([])
  })
})

/** A typecheck the tests control: one tsc-style error per line "bad" in src.txt; each run is counted. */
function typecheckProject(dir: string): void {
  writeFileSync(
    join(dir, "check.mjs"),
    [
      'import { appendFileSync, existsSync, readFileSync } from "node:fs"',
      'appendFileSync(".opencode/check-runs.log", "run\\n")',
      'const lines = existsSync("src.txt") ? readFileSync("src.txt", "utf8").split("\\n").filter((l) => l === "bad") : []',
      "for (const [i] of lines.entries()) console.log(`src.txt(${i + 1},1): error TS2322: a bad line`)",
      "process.exit(lines.length ? 2 : 0)",
    ].join("\n"),
  )
}

const CHECKS = [{ name: "typecheck", kind: "typecheck", command: "node check.mjs" }]
const AUTO = "Ralph Loop: AUTO-CONTINUE"
const autoPrompts = (p: Project) =>
  p.requests("main").filter((r) => r.lastRole === "user" && r.lastUser.startsWith(AUTO))
const checkRuns = (p: Project) =>
  existsSync(join(p.dir, ".opencode/check-runs.log"))
    ? readFileSync(join(p.dir, ".opencode/check-runs.log"), "utf8").split("\n").filter(Boolean).length
    : 0

/** The model writes src.txt with `bad` lines: `first` of them, then one fewer after each continuation. */
function fixingModel(get: () => Project, first: number) {
  return (r: MockRequest): Reply => {
    if (control(r)) return { text: "OK" }
    if (r.lastRole === "tool") return { text: "src.txt is written." }
    const bad = Math.max(0, first - autoPrompts(get()).length)
    return {
      toolCalls: [
        { name: "write", args: { filePath: join(get().dir, "src.txt"), content: `${"bad\n".repeat(bad)}good\n` } },
      ],
    }
  }
}

describe("auto-continue", () => {
  it("a turn that changed files and fails the typecheck is continued with the feedback line until the check passes", async () => {
    let p!: Project
    p = await project("auto-fix", {
      pluginOptions: { autoContinue: true, checks: CHECKS },
      script: { main: fixingModel(() => p, 2) },
    })
    typecheckProject(p.dir)
    const session = await p.newSession()
    await prompt(p, session, "fix the types in src.txt")
    await waitForLog(`auto-continue checks of ${session}: 0 error(s) → pass`)
    await p.waitForIdle()

    const sent = autoPrompts(p)
    expect(sent.map((r) => r.lastUser.split("\n")[0])).toEqual([
      `${AUTO} | 2 error(s) remaining | Next: fix src.txt (2)`,
      `${AUTO} | 1 error(s) remaining | Next: fix src.txt (1)`,
    ])
    expect(sent[0]?.lastUser).toContain("src.txt(1,1): error TS2322: a bad line")
    expect(checkRuns(p)).toBe(3)
    expect(p.loops()).toEqual([])
  })

  it("at most autoContinueMax continuations per user message, then a toast", async () => {
    let p!: Project
    p = await project("auto-max", {
      pluginOptions: { autoContinue: true, autoContinueMax: 2, checks: CHECKS },
      script: { main: fixingModel(() => p, 5) },
    })
    typecheckProject(p.dir)
    const session = await p.newSession()
    await prompt(p, session, "fix the types in src.txt")
    const stopped = await waitForToast(p, /^Ralph · auto-continue stopped/)
    await p.waitForIdle()
    expect(stopped.properties.message).toContain(
      "2 continuations for this message (autoContinueMax); 3 error(s) remain",
    )
    expect(autoPrompts(p)).toHaveLength(2)
    expect(checkRuns(p)).toBe(3)
  })

  it("off by default: no check runs at all, nothing is continued, and /ralph-status says why", async () => {
    let p!: Project
    p = await project("auto-off", { pluginOptions: { checks: CHECKS }, script: { main: fixingModel(() => p, 2) } })
    typecheckProject(p.dir)
    const session = await p.newSession()
    await prompt(p, session, "fix the types in src.txt")
    await p.command(session, "ralph-status", "")
    await p.waitForIdle()
    expect((await userTexts(p, session)).at(-1)).toContain("- auto-continue: off — autoContinue is false (the default)")
    expect(existsSync(join(p.dir, "src.txt"))).toBe(true)
    expect(checkRuns(p)).toBe(0)
    expect(autoPrompts(p)).toHaveLength(0)
  })
})

describe("completionMarkers", () => {
  it('completionMarkers: ["<jikime:done />"] ends a loop like the promise', async () => {
    const p = await project("markers", {
      pluginOptions: { strategy: "continue", completionMarkers: ["<jikime:done />"] },
      script: { main: [{ text: "Everything is fixed. <jikime:done />" }] },
    })
    const session = await p.newSession()
    await p.command(session, "ralph", "fix everything")
    const [loop] = await waitForLoopEnd(p, { phase: "stopped", stopReason: "completed" })
    expect(loop?.iteration).toBe(1)
    expect(p.requests("main")).toHaveLength(1)
  })
})

describe("feature switches", () => {
  it('disabledFeatures ["system-prompt", "tool-guard"]: no loop-mode note, and the loop\'s files are not guarded', async () => {
    let dir = ""
    const p = await project("features-off", {
      pluginOptions: { strategy: "continue", disabledFeatures: ["system-prompt", "tool-guard"] },
      script: {
        main: (r) =>
          r.lastRole === "tool"
            ? { text: "<promise>DONE</promise>" }
            : {
                toolCalls: [
                  {
                    name: "write",
                    args: { filePath: join(dir, ".opencode/ralph-loop/note.txt"), content: "written by the model\n" },
                  },
                ],
              },
      },
    })
    dir = p.dir
    const session = await p.newSession()
    await p.command(session, "ralph", "leave a note")
    await waitForLoopEnd(p, { phase: "stopped", stopReason: "completed" })
    expect(p.requests("main")[0]?.system).not.toContain("Ralph loop mode")
    expect(readFileSync(join(p.dir, ".opencode/ralph-loop/note.txt"), "utf8")).toBe("written by the model\n")
  })
})
