// todo-continuation in the real OpenCode: a session without a loop whose model stops with open todos
// (written with OpenCode's own todowrite tool) is continued after a countdown toast — once per turn
// end, at most todoContinuationMax in a row — and never when the user types, presses Esc, in a
// subagent's session or with the feature switched off (then not even the todo list is read).
import { describe, expect, it, onTestFinished } from "vitest"
import type { Project } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { sharedHarness, toastTitles, waitForStreamedText, waitForToast } from "./helpers.js"

const harness = sharedHarness({ env: { RALPH_LOOP_DEBUG: "1", RALPH_LOOP_FAULT_INJECTION: "1" } })

const CONTINUATION = "[Ralph · todo continuation"
const todo = (content: string, status: string, id: string) => ({ content, status, priority: "high", id })
const todoList = (status: string) => [todo("write the parser", status, "1"), todo("document the flags", status, "2")]
const writeTodos = (status: string): Reply => ({
  toolCalls: [{ name: "todowrite", args: { todos: todoList(status) } }],
})

/** The model's requests that carry a continuation the plugin sent. */
const continuations = (project: Project) =>
  project.requests("main").filter((r) => r.lastRole === "user" && r.lastUser.startsWith(CONTINUATION))

async function prompt(project: Project, sessionID: string, text: string): Promise<void> {
  const { error } = await project.client.session.prompt({
    path: { id: sessionID },
    body: { parts: [{ type: "text", text }] },
  })
  if (error) throw new Error(JSON.stringify(error))
}

/** A line the plugin wrote to OpenCode's log (RALPH_LOOP_DEBUG=1 shows its decisions). */
const waitForLog = (text: string, timeoutMs = 30_000) =>
  waitUntil(
    () => harness().server.output().includes(text),
    `the log line "${text}"`,
    timeoutMs,
    () => harness().server.output().slice(-1_500),
  )

async function userTexts(project: Project, sessionID: string): Promise<string[]> {
  const { data } = await project.client.session.messages({ path: { id: sessionID } })
  return (data ?? [])
    .filter((m) => m.info.role === "user")
    .map((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")).join(""))
}

async function plainProject(
  name: string,
  options: {
    pluginOptions?: Record<string, unknown>
    main: (r: MockRequest) => Reply
    configFile?: string
    configFileName?: string
  },
) {
  const project = await harness().project(name, {
    pluginOptions: options.pluginOptions ?? {},
    script: { main: options.main },
    ...(options.configFile ? { configFile: options.configFile, configFileName: options.configFileName } : {}),
  })
  onTestFinished(() => project.close())
  return project
}

describe("todo-continuation", () => {
  it("open todos: the countdown toast, then one continuation naming both; none once the model completes them", async () => {
    const project = await plainProject("todo-once", {
      main: (r) =>
        r.lastRole === "tool"
          ? { text: "Stopping here for now." }
          : r.lastUser.startsWith(CONTINUATION)
            ? writeTodos("completed")
            : writeTodos("pending"),
    })
    const session = await project.newSession()
    await prompt(project, session, "plan the parser work")
    const countdown = await waitForToast(project, /^Ralph · continuing in/)
    expect(countdown.properties.title).toBe("Ralph · continuing in 3 s — 2 open todos · type or Esc to stop")
    await project.waitForRequests(3)
    await waitForLog(`${session} not continued: no open todos`)
    await project.waitForIdle()

    const sent = continuations(project)
    expect(sent).toHaveLength(1)
    expect(sent[0]?.lastUser).toContain("- [pending] write the parser")
    expect(sent[0]?.lastUser).toContain("- [pending] document the flags")
    // The continuation came after the countdown (3 s from the turn's end), not at once: measured from
    // the turn's last request (the toast reaches the test later than it is sent, so it marks no moment).
    const turnEnd = project
      .requests("main")
      .filter((r) => r.at < sent[0]!.at)
      .at(-1)!
    expect(sent[0]!.at - turnEnd.at).toBeGreaterThanOrEqual(2_000)
    expect(toastTitles(project).filter((t) => t.startsWith("Ralph · continuing in"))).toHaveLength(1)
    expect(await userTexts(project, session)).toHaveLength(2)
  })

  it("a model that never completes a todo: exactly todoContinuationMax continuations, then a toast, then silence", async () => {
    const project = await plainProject("todo-max", {
      pluginOptions: { todoContinuationDelaySeconds: 0.5 },
      main: (r) => (r.lastRole === "tool" ? { text: "Still on it." } : writeTodos("pending")),
    })
    const session = await project.newSession()
    await prompt(project, session, "plan the parser work")
    const stopped = await waitForToast(project, /^Ralph · todo continuation stopped/)
    await project.waitForIdle()
    expect(stopped.properties.message).toContain(
      "3 continuations in a row without a todo completed (todoContinuationMax)",
    )
    expect(continuations(project)).toHaveLength(3)
    expect(continuations(project).map((r) => r.lastUser.split("\n")[0])).toEqual(
      [1, 2, 3].map((n) => `${CONTINUATION} ${n} of 3]`),
    )
    expect(toastTitles(project).filter((t) => t.startsWith("Ralph · continuing in"))).toHaveLength(3)
    expect(await userTexts(project, session)).toHaveLength(4)
  })

  // A countdown long enough for the test to act in it on a loaded machine.
  it("typing during the countdown: no continuation", async () => {
    const project = await plainProject("todo-typing", {
      pluginOptions: { todoContinuationDelaySeconds: 8 },
      main: (r) =>
        r.lastRole === "tool"
          ? { text: "ok" }
          : r.lastUser.includes("finish them myself")
            ? writeTodos("completed")
            : writeTodos("pending"),
    })
    const session = await project.newSession()
    await prompt(project, session, "plan the parser work")
    await waitForToast(project, /^Ralph · continuing in/)
    await prompt(project, session, "thanks, I will finish them myself")
    await waitForLog(`todo continuation of ${session} cancelled`)
    await waitForLog(`${session} not continued: no open todos`)
    await project.waitForIdle()
    expect(continuations(project)).toHaveLength(0)
    expect(await userTexts(project, session)).toHaveLength(2)
  })

  it("Esc during the countdown (an abort of the idle session), or /cancel-ralph: no continuation", async () => {
    for (const [name, stop] of [
      ["todo-esc-idle", (p: Project, s: string) => p.client.session.abort({ path: { id: s } })],
      ["todo-cancel", (p: Project, s: string) => p.command(s, "cancel-ralph", "")],
    ] as const) {
      const project = await plainProject(name, {
        pluginOptions: { todoContinuationDelaySeconds: 8 },
        main: (r) =>
          r.lastUser.startsWith("[ralph-loop control]")
            ? { text: "OK" }
            : r.lastRole === "tool"
              ? { text: "ok" }
              : writeTodos("pending"),
      })
      const session = await project.newSession()
      await prompt(project, session, "plan the parser work")
      await waitForToast(project, /^Ralph · continuing in/)
      await stop(project, session)
      await waitForLog(`todo continuation of ${session} cancelled`)
      await project.waitForIdle()
      expect(continuations(project)).toHaveLength(0)
    }
  })

  it("Esc while the model works: the aborted turn is not continued", async () => {
    const held = gate()
    const project = await plainProject("todo-esc-turn", {
      main: (r) =>
        r.lastRole === "tool"
          ? { text: "Working on the parser now, this takes a while", holdAfterFirstChunk: held.opened }
          : writeTodos("pending"),
    })
    const session = await project.newSession()
    const turn = prompt(project, session, "plan the parser work").catch(() => undefined)
    await waitForStreamedText(project, /Working on/)
    await project.client.session.abort({ path: { id: session } })
    held.open()
    await turn
    // OpenCode publishes more idles after an abort: the plugin sees the turn ended aborted, or the Esc as such.
    await waitForLog(`${session} not continued: `)
    await project.waitForIdle()
    expect(continuations(project)).toHaveLength(0)
    expect(toastTitles(project).filter((t) => t.startsWith("Ralph · continuing in"))).toHaveLength(0)
  })

  it("a subagent's (child) session with open todos: none", async () => {
    const project = await plainProject("todo-child", {
      main: (r) => (r.lastRole === "tool" ? { text: "ok" } : writeTodos("pending")),
    })
    const parent = await project.newSession()
    const { data: child } = await project.client.session.create({ body: { parentID: parent, title: "child" } })
    await prompt(project, child!.id, "plan the parser work")
    await waitForLog(`${child!.id} not continued: a subagent's session`)
    await project.waitForIdle()
    expect(continuations(project)).toHaveLength(0)
    expect(toastTitles(project)).toEqual([])
  })

  it('disabledFeatures ["todo-continuation"]: none, and the todo list is never read (session.todo)', async () => {
    // session.todo fails on purpose in both projects: where the feature is on, the failed read is logged.
    const faults = JSON.stringify({ calls: { "session.todo": { mode: "error", times: 10 } } })
    const main = (r: MockRequest): Reply =>
      r.lastUser.startsWith("[ralph-loop control]")
        ? { text: "OK" }
        : r.lastRole === "tool"
          ? { text: "ok" }
          : writeTodos("pending")
    const on = await plainProject("todo-read", { main, configFile: faults, configFileName: "ralph-loop-faults.json" })
    const onSession = await on.newSession()
    await prompt(on, onSession, "plan the parser work")
    await waitForLog(`continuation of ${onSession} failed: session.todo failed`)

    const off = await plainProject("todo-off", {
      pluginOptions: { disabledFeatures: ["todo-continuation"] },
      main,
      configFile: faults,
      configFileName: "ralph-loop-faults.json",
    })
    const offSession = await off.newSession()
    await prompt(off, offSession, "plan the parser work")
    // /ralph-status runs after the turn's events were handled, and says why nothing happens.
    await off.command(offSession, "ralph-status", "")
    await off.waitForIdle()
    const status = (await userTexts(off, offSession)).at(-1) ?? ""
    expect(status).toContain("- todo-continuation: off — listed in disabledFeatures")
    expect(status).toContain("- keyword: on")
    expect(status).toContain("- auto-continue: off — autoContinue is false")
    expect(harness().server.output()).not.toContain(`continuation of ${offSession}`)
    expect(continuations(off)).toHaveLength(0)
    expect(toastTitles(off).filter((t) => t.startsWith("Ralph · continuing"))).toHaveLength(0)
  })
})
