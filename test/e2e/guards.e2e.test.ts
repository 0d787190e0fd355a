// Who the loop may prompt, and what counts as the promise — in the real OpenCode.
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { gate } from "../harness/mock-model.js"
import { distinctReply, sharedHarness, toastTitles, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

async function prompt(project: Project, sessionID: string, text: string): Promise<void> {
  const { error } = await project.client.session.prompt({
    path: { id: sessionID },
    body: { parts: [{ type: "text", text }] },
  })
  if (error) throw new Error(JSON.stringify(error))
}

async function userMessages(project: Project, sessionID: string): Promise<number> {
  const { data } = await project.client.session.messages({ path: { id: sessionID } })
  return (data ?? []).filter((m) => m.info.role === "user").length
}

describe("the promise", () => {
  it("in the user's task or in the plugin's own instruction does not end the loop; only the assistant's text does", async () => {
    const project = await harness().project("promise-in-task", {
      pluginOptions: { strategy: "continue" },
      script: { main: [{ text: "I read the task; starting now." }, { text: "Done: <promise>DONE</promise>" }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "print <promise>DONE</promise> when the file exists")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    // Turn 1 had the promise only in the user's text and the instruction: the loop went on to turn 2.
    const main = project.requests("main")
    expect(main).toHaveLength(2)
    expect(main[0]?.lastUser).toContain("print <promise>DONE</promise> when the file exists")
    expect(main[1]?.lastUser).toMatch(/iteration 2 of 6/)
  })

  it("is found with other whitespace and case, and a custom promise word with regex characters works", async () => {
    const project = await harness().project("custom-word", {
      pluginOptions: { strategy: "continue", promiseWord: "ALL (DONE)?" },
      script: {
        main: [{ text: "<promise>ALL DONE</promise> is not it" }, { text: "ok <promise>\n all  (done)? </promise>" }],
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "do it")
    await waitForToast(project, /^Ralph · done/)
    expect(project.requests("main")).toHaveLength(2)
    expect(project.requests("main")[0]?.lastUser).toContain("<promise>ALL (DONE)?</promise>")
  })
})

describe("sessions without a loop", () => {
  it("a session not started with /ralph is never prompted and gets no loop note", async () => {
    const project = await harness().project("no-loop", { script: { main: [{ text: "just an answer" }] } })
    const session = await project.newSession()
    await prompt(project, session, "hello there")
    await project.waitForIdle()
    // No loop on disk: the plugin never made one, and it prompts only for a loop.
    expect(project.loops()).toEqual([])
    expect(project.requests("main")).toHaveLength(1)
    expect(project.requests("main")[0]?.system).not.toContain("Ralph loop mode")
    expect(await userMessages(project, session)).toBe(1)
    expect(toastTitles(project)).toEqual([])
  })

  it("a child session of a loop's session is never prompted, and /ralph will not start there", async () => {
    const project = await harness().project("child", {
      pluginOptions: { strategy: "continue", maxRetries: 1 },
      script: { main: [{ text: "working" }] },
    })
    const parent = await project.newSession()
    await project.command(parent, "ralph", "the parent task")
    await waitForToast(project, /retry limit/)

    const { data: child } = await project.client.session.create({ body: { parentID: parent, title: "child" } })
    await prompt(project, child!.id, "child work")
    await project.command(child!.id, "ralph", "a loop in a child")
    await waitForToast(project, /^Ralph · not started$/)
    // One loop on disk, the parent's, ended; none for the child.
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "retries-exhausted" })
    expect(loop?.sessionID).toBe(parent)
    expect(await userMessages(project, child!.id)).toBe(2)
    expect(project.events.toasts().filter((t) => t.title?.startsWith("Ralph 1/"))).toHaveLength(1)
  })

  it("a second session of the same project is not touched by a loop running in the first", async () => {
    const project = await harness().project("two-sessions", {
      pluginOptions: { strategy: "continue", maxRetries: 2 },
      script: { main: [{ text: "working" }] },
    })
    const looping = await project.newSession()
    const bystander = await project.newSession()
    await project.command(looping, "ralph", "loop here")
    await prompt(project, bystander, "unrelated question")
    await waitForToast(project, /retry limit/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "retries-exhausted" })
    expect(await userMessages(project, bystander)).toBe(1)
    expect(await userMessages(project, looping)).toBe(3)
  })
})

describe("activation", () => {
  it('"always": the first message of a new session starts a loop, with the promise instruction', async () => {
    const project = await harness().project("always", {
      pluginOptions: { activation: "always", strategy: "continue" },
      script: { main: [{ text: "working" }, { text: "<promise>DONE</promise>" }] },
    })
    const session = await project.newSession()
    await prompt(project, session, "refactor the parser")
    await waitForToast(project, /^Ralph · done/)
    const main = project.requests("main")
    expect(main).toHaveLength(2)
    expect(main[0]?.lastUser).toContain("<promise>DONE</promise>")
    expect(main[1]?.lastUser).toContain("refactor the parser")
  })

  it("autoRestart false: a missing promise is reported and nothing is sent", async () => {
    const project = await harness().project("no-auto", {
      pluginOptions: { autoRestart: false },
      script: { main: [{ text: "I stopped early" }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task")
    // The toast is the last thing the decision on turn 1 does; nothing follows until another turn.
    const toast = await waitForToast(project, /no promise yet/)
    await project.waitForIdle()
    expect(toast.properties.variant).toBe("warning")
    expect(project.requests("main")).toHaveLength(1)
    expect(await userMessages(project, session)).toBe(1)
  })
})

describe("/cancel-ralph", () => {
  it("ends the loop in the plugin: after it, nothing more is sent", async () => {
    const third = gate()
    const project = await harness().project("cancel", {
      pluginOptions: { strategy: "continue", maxRetries: 50 },
      script: {
        main: (r) =>
          r.lastUser.startsWith("[ralph-loop control]")
            ? { text: "OK" }
            : { ...distinctReply(r.index), ...(r.index === 2 ? { holdAfterFirstChunk: third.opened } : {}) },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a long task")
    // Cancelled while iteration 3 streams; its end, and the command's own turn, must send nothing.
    await project.waitForRequests(3)
    const cancelling = project.command(session, "cancel-ralph", "")
    await waitForToast(project, /cancelled/)
    third.open()
    await cancelling
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "cancelled" })
    const main = project.requests("main")
    expect(main).toHaveLength(4)
    expect(main[3]?.lastUser).toMatch(/^\[ralph-loop control\]/)
  })
})
