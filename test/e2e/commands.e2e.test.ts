// /ralph flags and the control commands, acting in the plugin; loops side by side; self-protection.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { gate, type MockRequest } from "../harness/mock-model.js"
import {
  distinctReply,
  selectedSessions,
  sharedHarness,
  toastTitles,
  waitForLoopEnd,
  waitForStreamedText,
  waitForToast,
  waitForToasts,
} from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")

async function userTexts(project: Project, sessionID: string): Promise<string[]> {
  const { data } = await project.client.session.messages({ path: { id: sessionID } })
  return (data ?? [])
    .filter((m) => m.info.role === "user")
    .map((m) => m.parts.map((p) => (p.type === "text" && !p.synthetic ? p.text : "")).join(""))
}

describe("/ralph flags", () => {
  it("both forms set the loop's options, and the task the model gets has no flags in it", async () => {
    const project = await harness().project("flags", { script: { main: (r) => distinctReply(r.index) } })
    const session = await project.newSession()
    await project.command(session, "ralph", 'Build the "widget" --max-retries 1 --strategy=continue')
    const stop = await waitForToast(project, /retry limit/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "retries-exhausted" })
    const first = project.requests("main")[0]?.lastUser ?? ""
    expect(first).toContain('Build the "widget"')
    expect(first).not.toContain("--")
    expect(stop.properties.message).toContain("maxRetries 1")
    expect(project.requests("main")).toHaveLength(2)
    expect(selectedSessions(project)).toHaveLength(0)
  })

  it("a bad flag starts nothing, and the reply names it", async () => {
    const project = await harness().project("bad-flag", {
      script: { main: [{ text: "No loop was started: unknown flag --max-iteration." }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "do it --max-iteration 5")
    const toast = await waitForToast(project, /^Ralph · not started$/)
    await project.waitForIdle()
    expect(toast.properties.message).toContain("unknown flag --max-iteration (did you mean --max-iterations?)")
    expect(project.loops()).toEqual([])
    expect(project.requests("main")).toHaveLength(1)
    expect(project.requests("main")[0]?.lastUser).toContain("no Ralph loop was started: unknown flag --max-iteration")
    expect(project.requests("main")[0]?.system).not.toContain("Ralph loop mode")
  })
})

describe("control commands", () => {
  it("/cancel-ralph while the model is mid-turn: after that turn nothing more is sent", async () => {
    const turnOne = gate()
    const project = await harness().project("cancel-mid-turn", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : { text: "a slow reply that takes a while", holdAfterFirstChunk: turnOne.opened },
      },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "a slow task").catch(() => undefined)
    await waitForStreamedText(project, /^a slow/)
    void project.command(session, "cancel-ralph", "").catch(() => undefined)
    await waitForToast(project, /cancelled/)
    // Turn 1 goes on streaming past the cancel; its end, and the command's own turn, must send nothing.
    turnOne.open()
    await project.waitForRequests(2)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "cancelled" })
    const main = project.requests("main")
    expect(main).toHaveLength(2)
    expect(isControl(main[1]!)).toBe(true)
    expect(main[1]?.lastUser).toContain("The Ralph loop ended at iteration 1")
  })

  it("/ralph-pause, /ralph-status, /ralph-hint and /ralph-resume act in the plugin", async () => {
    const turnOne = gate()
    const project = await harness().project("controls", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : r.lastUser.includes("HINT-TOKEN")
              ? { text: "<promise>DONE</promise>" }
              : { text: "working on the first part", holdAfterFirstChunk: turnOne.opened },
      },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "a task to steer").catch(() => undefined)
    await waitForStreamedText(project, /^working/)
    const pausing = project.command(session, "ralph-pause", "")
    await waitForToast(project, /^Ralph · paused$/)
    turnOne.open()
    await pausing
    const [paused] = await waitForLoopEnd(project, { phase: "paused" })
    expect(paused?.detail).toBe("paused with /ralph-pause")
    // Paused during turn 1: its end sent nothing; the only other request is /ralph-pause's own turn.
    expect(project.requests("main").filter((r) => !isControl(r))).toHaveLength(1)
    expect(project.requests("main").filter(isControl)).toHaveLength(1)

    await project.command(session, "ralph-status", "")
    const status = project.requests("main").at(-1)!
    expect(status.lastUser).toMatch(/Ralph loop — paused: paused with \/ralph-pause/)
    expect(status.lastUser).toMatch(/Iteration 1 of 6 · restarts 0 of 5 · strategy continue/)
    expect(status.lastUser).toMatch(/Circuit breaker: CLOSED/)

    await project.command(session, "ralph-hint", "HINT-TOKEN use the fast path")
    await project.command(session, "ralph-resume", "")
    await waitForToast(project, /^Ralph · done/)
    const resumed = project
      .requests("main")
      .filter((r) => !isControl(r))
      .at(-1)!
    expect(resumed.lastUser).toContain("## Hint from the user")
    expect(resumed.lastUser).toContain("HINT-TOKEN use the fast path")
    // Turn 1 ended while paused, undecided: resuming decides it (no promise → iteration 2).
    expect(resumed.lastUser).toMatch(/iteration 2 of 6 · same session/)
    expect(toastTitles(project)).toEqual(
      expect.arrayContaining(["Ralph · paused", "Ralph · status", "Ralph · hint queued", "Ralph · resumed"]),
    )
  })

  it("/ralph-help explains usage without a loop", async () => {
    const project = await harness().project("help", { script: { main: [{ text: "OK" }] } })
    const session = await project.newSession()
    await project.command(session, "ralph-help", "")
    expect(project.loops()).toEqual([])
    expect(project.requests("main")[0]?.lastUser).toContain("/ralph <task> [flags]")
    expect(project.requests("main")[0]?.lastUser).toContain("--max-iterations")
  })
})

describe("isolation", () => {
  it("two loops in two sessions at once: each gets exactly its own continuations", async () => {
    const turns = new Map<string, number>()
    const project = await harness().project("two-loops", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) => {
          const task = r.lastUser.includes("alpha task") ? "alpha" : r.lastUser.includes("beta task") ? "beta" : "other"
          const n = (turns.get(task) ?? 0) + 1
          turns.set(task, n)
          return n < 3
            ? { text: `${task} still working ${"z".repeat(n)}`, delayMs: 150 }
            : { text: "<promise>DONE</promise>" }
        },
      },
    })
    const a = await project.newSession()
    const b = await project.newSession()
    const c = await project.newSession()
    await Promise.all([project.command(a, "ralph", "the alpha task"), project.command(b, "ralph", "the beta task")])
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 2)
    await waitForToasts(project, /^Ralph · done/, 2)
    expect(project.events.toasts().filter((t) => t.title === "Ralph · done")).toHaveLength(2)
    const [textsA, textsB, textsC] = await Promise.all([
      userTexts(project, a),
      userTexts(project, b),
      userTexts(project, c),
    ])
    expect(textsA).toHaveLength(3)
    expect(textsB).toHaveLength(3)
    expect(textsC).toHaveLength(0)
    expect(textsA.every((t) => t.includes("alpha task") && !t.includes("beta task"))).toBe(true)
    expect(textsB.every((t) => t.includes("beta task") && !t.includes("alpha task"))).toBe(true)
  })
})

describe("self-protection", () => {
  it("the model's `rm -rf .opencode/ralph-loop` is refused while the loop is active, with a message it sees", async () => {
    const project = await harness().project("protect", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) =>
          r.lastRole === "tool"
            ? { text: "<promise>DONE</promise>" }
            : {
                toolCalls: [
                  { name: "bash", args: { command: "rm -rf .opencode/ralph-loop", description: "Clean up" } },
                ],
              },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "tidy up")
    await waitForToast(project, /^Ralph · done/)
    const followUp = project.requests("main").find((r) => r.lastRole === "tool")
    const toolResult = JSON.stringify(followUp?.body.messages?.at(-1))
    expect(toolResult).toContain("belongs to the running Ralph loop")
    expect(existsSync(join(project.dir, ".opencode/ralph-loop/loops"))).toBe(true)
  })
})
