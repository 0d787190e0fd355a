// What a control command's own model turn costs: OpenCode 1.18.33 runs one for every command, so
// the plugin sends it as the control message alone — no history, a one-line system prompt, no
// tools, a small output cap. The turns around it (the loop's next turn, the user's own message)
// still get the whole session.
import { describe, expect, it } from "vitest"
import { CONTROL_MAX_OUTPUT_TOKENS } from "../../src/hooks/chat-params.js"
import { CONTROL_SYSTEM_PROMPT } from "../../src/hooks/system-transform.js"
import { gate, messageText, type MockRequest } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForStreamedText, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const roles = (r: MockRequest) => (r.body.messages ?? []).map((m) => m.role)
const texts = (r: MockRequest) => (r.body.messages ?? []).map(messageText).join("\n")
const toolCount = (r: MockRequest) => r.body.tools?.length ?? 0

/** A control turn's request: the system line and the control message, nothing else. */
function expectControlOnly(r: MockRequest, command: string) {
  expect(roles(r)).toEqual(["system", "user"])
  expect(r.system).toBe(CONTROL_SYSTEM_PROMPT)
  expect(r.lastUser).toMatch(new RegExp(`^\\[ralph-loop control\\] /${command}\\n`))
  // None of the loop's messages: not its first prompt (the loop's rules), not the model's reply.
  expect(texts(r)).not.toContain("When the task is completely done")
  expect(texts(r)).not.toContain("working on part one")
  expect(toolCount(r)).toBe(0)
  expect((r.body as { max_tokens?: number }).max_tokens).toBe(CONTROL_MAX_OUTPUT_TOKENS)
}

/** A turn sent as OpenCode builds it: the whole prompt and tools, and the session's history. */
function expectWholeContext(r: MockRequest) {
  expect(r.system).toContain("<env>")
  expect(toolCount(r)).toBeGreaterThan(0)
  expect(texts(r)).toContain("TASK-TOKEN build the parser\n\nWhen the task is completely done")
  expect(texts(r)).toContain("working on part one")
  expect((r.body as { max_tokens?: number }).max_tokens ?? Number.POSITIVE_INFINITY).toBeGreaterThan(
    CONTROL_MAX_OUTPUT_TOKENS,
  )
}

describe("a control command's turn", () => {
  it("carries only its control message, while the loop's next turn and the user's own message carry the whole session", async () => {
    const turnOne = gate()
    const project = await harness().project("control-turn", {
      pluginOptions: { strategy: "continue", maxRetries: 1 },
      script: {
        main: (r) => {
          if (isControl(r)) return { text: "OK" }
          if (r.lastUser.includes("USER-QUESTION")) return { text: "an answer with the whole context" }
          return r.index === 0
            ? { text: "working on part one", holdAfterFirstChunk: turnOne.opened }
            : { text: "working on part two" }
        },
      },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "TASK-TOKEN build the parser").catch(() => undefined)
    await waitForStreamedText(project, /^working/)
    const pausing = project.command(session, "ralph-pause", "")
    await waitForToast(project, /^Ralph · paused$/)
    turnOne.open()
    await pausing
    await waitForLoopEnd(project, { phase: "paused" })

    await project.command(session, "ralph-status", "")
    const status = project.requests("main").at(-1)!
    expectControlOnly(status, "ralph-status")
    expect(status.lastUser).toContain("Ralph loop — paused: paused with /ralph-pause")
    // Tools were switched off for that request only: the stored message has no tools setting.
    const { data: stored } = await project.client.session.messages({ path: { id: session } })
    const controlMessage = stored?.find((m) =>
      m.parts.some((p) => p.type === "text" && p.text.startsWith("[ralph-loop control] /ralph-status")),
    )
    expect(controlMessage?.info.role).toBe("user")
    expect(controlMessage?.info.role === "user" && controlMessage.info.tools).toBeFalsy()

    await project.command(session, "ralph-resume", "")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "retries-exhausted" })
    const main = project.requests("main")
    // The pause typed while turn 1 streamed ran its turn after it, in the same run of OpenCode's loop.
    expectControlOnly(main.find((r) => r.lastUser.startsWith("[ralph-loop control] /ralph-pause"))!, "ralph-pause")
    expectControlOnly(main.find((r) => r.lastUser.startsWith("[ralph-loop control] /ralph-resume"))!, "ralph-resume")

    const turnTwo = main.filter((r) => !isControl(r)).at(-1)!
    expect(turnTwo.lastUser).toMatch(/iteration 2 of 2 · same session/)
    expectWholeContext(turnTwo)
    // The control turns stay in the session's history for the turns after them.
    expect(texts(turnTwo)).toContain("[ralph-loop control] /ralph-status")

    const { error } = await project.client.session.prompt({
      path: { id: session },
      body: { parts: [{ type: "text", text: "USER-QUESTION what changed?" }] },
    })
    expect(error).toBeUndefined()
    const own = project.requests("main").at(-1)!
    expect(own.lastUser).toBe("USER-QUESTION what changed?")
    expectWholeContext(own)
    expect(texts(own)).toContain("working on part two")
    expect(project.events.of("session.error")).toEqual([])
  })

  it("as a new session's first message: OpenCode's title request beside it keeps its own prompt", async () => {
    const project = await harness().project("control-first", { script: { main: [{ text: "OK" }] } })
    // Created without a title, so OpenCode names it from its first message.
    const { data: session } = await project.client.session.create({ body: {} })
    await project.command(session!.id, "ralph-help", "")
    await project.waitForRequests(1, "title")
    await project.waitForIdle()
    expectControlOnly(project.requests("main")[0]!, "ralph-help")
    expect(project.requests("title")[0]?.system).toMatch(/title generator/i)
    await project.events.waitFor(
      (e) =>
        e.type === "session.updated" &&
        e.properties.info?.id === session!.id &&
        e.properties.info?.title === "Mock title",
      "the generated title",
    )
  })
})
