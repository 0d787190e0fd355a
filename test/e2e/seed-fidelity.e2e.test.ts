// What the user's design documents say, working as they say it in the real OpenCode (issue 18): an
// explicit iteration limit, seed 000's config block in opencode.json, progress that words alone do
// not make, open todos that veto a completion, `@path` targets and `/ralph --cancel`, the state-file
// check mid-loop, resumeOnStart "ask", RALPH_LOOP_DEBUG and the handoff instructions of a summary.
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, onTestFinished } from "vitest"
import { startHarness, type Project } from "../harness/harness.js"
import type { MockRequest } from "../harness/mock-model.js"
import { RALPH_SUMMARY_INSTRUCTIONS } from "../../src/loop/handoff.js"
import { waitUntil } from "../harness/wait.js"
import { distinctReply, sharedHarness, summaryFile, toastTitles, waitForToast } from "./helpers.js"

const harness = sharedHarness({ env: { RALPH_LOOP_DEBUG: "1" } })

const prompts = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user")

function stateFile(project: Project): string {
  const dir = join(project.dir, ".opencode/ralph-loop/loops")
  const files = readdirSync(dir).filter((f) => f.endsWith(".json"))
  expect(files).toHaveLength(1)
  return join(dir, files[0] as string)
}

const loopState = (project: Project) =>
  JSON.parse(readFileSync(stateFile(project), "utf8")).loop as Record<string, unknown>

/** The loop's state file once it has reached `phase` (a toast can come before the write it announces). */
async function stateOnceIn(project: Project, phase: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const state = loopState(project)
    if (state.phase === phase || Date.now() > deadline) return state
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("limits as the user set them", () => {
  it("--max-iterations 8 is the limit (not the default retry limit's 6 turns)", async () => {
    const project = await harness().project("max-iterations", {
      pluginOptions: { strategy: "continue", noProgressThreshold: 100 },
      script: { main: (r: MockRequest) => distinctReply(r.index) },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a long task --max-iterations 8")
    const stop = await waitForToast(project, /iteration limit/)
    expect(stop.properties.message).toContain("iteration limit reached: 8 of 8")
    expect(await stateOnceIn(project, "stopped")).toMatchObject({
      phase: "stopped",
      stopReason: "max-iterations",
      iteration: 8,
      retries: 7,
    })
    expect(prompts(project)).toHaveLength(8)
  })

  it("--max-iterations 8 with maxRetries 5 in the plugin options (as the shipped example sets it): the flag is the limit, and a toast says maxRetries was raised", async () => {
    const project = await harness().project("max-iterations-over-retries", {
      pluginOptions: { strategy: "continue", noProgressThreshold: 100, maxRetries: 5 },
      script: { main: (r: MockRequest) => distinctReply(r.index) },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a long task --max-iterations 8")
    const adjusted = await waitForToast(project, /^Ralph · settings adjusted/)
    expect(adjusted.properties.message).toBe(
      "--max-iterations 8 raises maxRetries 5 (settings) to 7 for this loop: the limit set last is the limit",
    )
    await waitForToast(project, /iteration limit/)
    expect(await stateOnceIn(project, "stopped")).toMatchObject({
      phase: "stopped",
      stopReason: "max-iterations",
      iteration: 8,
      settings: { maxIterations: 8, maxRetries: 7 },
    })
    expect(prompts(project)).toHaveLength(8)
  })

  it("maxRetries 52 in the settings file is the limit: 53 turns, not the default iteration limit's 50", async () => {
    const project = await harness().project("max-retries", {
      configFile: JSON.stringify({
        strategy: "continue",
        noProgressThreshold: 100,
        maxCallsPerHour: 1000,
        maxRetries: 52,
      }),
      script: { main: (r: MockRequest) => distinctReply(r.index) },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a long task")
    // 53 model turns: on a busy machine (two OpenCode servers and a CPU hog beside it) that is minutes.
    const stop = await waitForToast(project, /retry limit|iteration limit/, 280_000)
    // Both limits are reached together; the iteration limit is the one named.
    expect(await stateOnceIn(project, "stopped")).toMatchObject({
      phase: "stopped",
      stopReason: "max-iterations",
      iteration: 53,
      retries: 52,
      settings: { maxIterations: 53, maxRetries: 52 },
    })
    expect(stop.properties.message).toContain("iteration limit reached: 53 of 53")
    expect(prompts(project)).toHaveLength(53)
  }, 300_000)

  it('seed 000\'s "ralph-loop" block in opencode.json is read: its promise word and retry limit apply', async () => {
    const project = await harness().project("seed-block", {
      opencodeConfig: { "ralph-loop": { promiseWord: "FIN", maxRetries: 1, strategy: "continue" } },
      script: { main: (r: MockRequest) => distinctReply(r.index) },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a task configured as seed 000 does")
    await waitForToast(project, /limit/)
    expect(prompts(project)[0]?.lastUser).toContain("<promise>FIN</promise>")
    expect(await stateOnceIn(project, "stopped")).toMatchObject({
      phase: "stopped",
      stopReason: "retries-exhausted",
      iteration: 2,
      retries: 1,
    })
    expect(prompts(project)).toHaveLength(2)
  })
})

describe("progress is measured, not worded", () => {
  it("a model whose every reply is worded differently and changes nothing trips the breaker", async () => {
    const project = await harness().project("reworded", {
      pluginOptions: { strategy: "continue", maxRetries: 20, noProgressThreshold: 2, cooldownMinutes: 30 },
      script: { main: (r: MockRequest) => distinctReply(r.index) },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a task the model only talks about")
    const open = await waitForToast(project, /circuit breaker OPEN/)
    expect(open.properties.message).toContain("2 iterations in a row without progress")
    expect(await stateOnceIn(project, "waiting")).toMatchObject({ phase: "waiting", iteration: 2 })
    expect(prompts(project)).toHaveLength(2)
  })
})

describe("open todos veto a completion claim", () => {
  const todo = (content: string, status: string, id: string) => ({ content, status, priority: "high", id })

  it("the promise with two open todos goes on, naming them; done once they are completed", async () => {
    const project = await harness().project("todos", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest) => {
          const turn = prompts(project).length
          if (r.lastRole === "tool") return { text: "Done. <promise>DONE</promise>" }
          const status = turn === 1 ? "pending" : "completed"
          return {
            toolCalls: [
              {
                name: "todowrite",
                args: { todos: [todo("write the parser", status, "1"), todo("document the flags", status, "2")] },
              },
            ],
          }
        },
      },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a task with a todo list")
    const done = await waitForToast(project, /^Ralph · done/)
    expect(done.properties.message).toContain("finished in 2 iterations")
    const second = prompts(project)[1]?.lastUser ?? ""
    expect(second).toContain("these todos are still open")
    expect(second).toContain("- write the parser")
    expect(second).toContain("- document the flags")
    expect(prompts(project)).toHaveLength(2)
  })
})

describe("seed 004's @path and --cancel", () => {
  it("@src/ scopes the handoff's changed files to the target", async () => {
    const project = await harness().project("targets", {
      pluginOptions: { strategy: "recreate" },
      script: {
        main: (r: MockRequest) => {
          if (r.lastRole === "tool") return { text: "wrote both files" }
          if (/iteration 2 of/.test(r.lastUser)) return { text: "<promise>DONE</promise>" }
          return {
            toolCalls: [
              { name: "write", args: { filePath: join(project.dir, "src/a.txt"), content: "in the target\n" } },
              { name: "write", args: { filePath: join(project.dir, "other.txt"), content: "outside\n" } },
            ],
          }
        },
      },
    })
    onTestFinished(() => project.close())
    const first = await project.newSession()
    await project.command(first, "ralph", "@src/ fill the source folder")
    await waitForToast(project, /^Ralph · done/)
    const handoff = readFileSync(summaryFile(project, first), "utf8")
    expect(handoff).toContain("src/a.txt")
    expect(handoff).not.toContain("other.txt")
    expect(await stateOnceIn(project, "stopped")).toMatchObject({ targets: ["src/"], stopReason: "completed" })
  })

  it("/ralph --cancel ends the loop as /cancel-ralph does", async () => {
    const project = await harness().project("dash-cancel", {
      pluginOptions: { strategy: "continue", noProgressThreshold: 100 },
      script: { main: (r: MockRequest) => distinctReply(r.index) },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a task to cancel")
    await project.command(session, "ralph", "--cancel")
    await waitForToast(project, /^Ralph · cancelled/)
    expect(await stateOnceIn(project, "stopped")).toMatchObject({ phase: "stopped", stopReason: "cancelled" })
  })
})

describe("behaviour that had no test", () => {
  it("a state file edited by hand mid-loop is moved aside and rewritten from the running loop", async () => {
    let edited = false
    const project = await harness().project("state-edit", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest) => {
          if (r.index === 0) {
            // While the first turn runs, someone edits the loop's state file.
            const file = stateFile(project)
            writeFileSync(file, readFileSync(file, "utf8").replace(/"iteration": 1/, '"iteration": 99'))
            edited = true
            return { text: "first half" }
          }
          return { text: "<promise>DONE</promise>" }
        },
      },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a task whose state is tampered with")
    const restored = await waitForToast(project, /state file restored/)
    await waitForToast(project, /^Ralph · done/)
    expect(edited).toBe(true)
    expect(restored.properties.message).toMatch(/was changed outside the plugin; moved aside to .*\.corrupt-/)
    expect(await stateOnceIn(project, "stopped")).toMatchObject({ stopReason: "completed", iteration: 2 })
    expect(
      readdirSync(join(project.dir, ".opencode/ralph-loop/loops")).filter((f) => f.includes(".corrupt-")),
    ).toHaveLength(1)
  })

  it("RALPH_LOOP_DEBUG=1 writes each decision to OpenCode's log", async () => {
    const project = await harness().project("debug-log", {
      pluginOptions: { strategy: "continue" },
      script: { main: [{ text: "first half" }, { text: "<promise>DONE</promise>" }] },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a task with debug logging")
    await waitForToast(project, /^Ralph · done/)
    // The log reaches the server's output on a path of its own (not the toast's): the last decision is waited for.
    const output = () => harness().server.output()
    await waitUntil(
      () => output().includes(`idle of ${session}: complete`),
      `the log line "idle of ${session}: complete"`,
      30_000,
      () => output().slice(-1_500),
    )
    expect(output()).toContain(`idle of ${session}: restart`)
  })

  it("the summary for a fresh session is asked to be a handoff (experimental.session.compacting)", async () => {
    const project = await harness().project("handoff-instructions", {
      pluginOptions: { strategy: "fresh" },
      script: {
        main: (r: MockRequest) =>
          /iteration 2 of/.test(r.lastUser) ? { text: "<promise>DONE</promise>" } : { text: "first half" },
      },
    })
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "a task handed over")
    await waitForToast(project, /^Ralph · done/)
    const compaction = project.requests("compaction")
    expect(compaction).toHaveLength(1)
    expect(JSON.stringify(compaction[0]?.body)).toContain(JSON.stringify(RALPH_SUMMARY_INSTRUCTIONS).slice(1, 80))
    expect(toastTitles(project).filter((t) => t === "Ralph · done")).toHaveLength(1)
  })
})

describe('resumeOnStart "ask"', () => {
  it("after a kill mid-turn the loop waits, paused, sending nothing; /ralph-resume goes on as recovery would", async () => {
    const h = await startHarness()
    onTestFinished(() => h.stop())
    let project!: Project
    const loopPrompts = () => prompts(project).filter((r) => !r.lastUser.includes("[ralph-loop control]"))
    project = await h.project("ask", {
      pluginOptions: { strategy: "continue", resumeOnStart: "ask" },
      script: {
        main: (r: MockRequest) => {
          if (r.lastUser.includes("[ralph-loop control]")) return { text: "OK" }
          if (/restarted while you were working/.test(r.lastUser)) return { text: "<promise>DONE</promise>" }
          return loopPrompts().length <= 1
            ? { text: "first part written" }
            : { text: "working on the second part slowly", chunkDelayMs: 4_000 }
        },
      },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "a task in two parts").catch(() => undefined)
    // Iteration 2 is streaming (its first chunk is out) when OpenCode is killed.
    await h.mock.waitFor(() => loopPrompts().length >= 2, 30_000, "iteration 2")
    await h.restartServer("SIGKILL")

    const paused = await waitForToast(project, /paused/)
    expect(paused.properties.message).toContain('resumeOnStart is "ask"')
    expect(await stateOnceIn(project, "paused")).toMatchObject({ phase: "paused", iteration: 2 })
    expect(loopPrompts()).toHaveLength(2)

    await project.command(session, "ralph-resume", "")
    const done = await waitForToast(project, /^Ralph · done/)
    expect(done.properties.message).toContain("finished in 2 iterations")
    expect(loopPrompts().at(-1)?.lastUser).toMatch(/iteration 2 of 6 · resuming/)
    expect(loopPrompts()).toHaveLength(3)
    expect(toastTitles(project).filter((t) => /paused/.test(t))).toHaveLength(1)
  })
})
