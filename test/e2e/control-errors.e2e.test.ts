// The class of each idle, in the real OpenCode: provider limits, Esc, permissions, duplicate
// idles, auth errors and context overflow.
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import {
  selectedSessions,
  sessionIDs,
  sharedHarness,
  toastTitles,
  waitForLoopEnd,
  waitForStreamedText,
  waitForToast,
} from "./helpers.js"

const harness = sharedHarness()

const prompted = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user")

async function say(project: Project, sessionID: string, text: string): Promise<void> {
  const { error } = await project.client.session.promptAsync({
    path: { id: sessionID },
    body: { parts: [{ type: "text", text }] },
  })
  if (error) throw new Error(JSON.stringify(error))
}

describe("rate limit", () => {
  it("429 with retry-after: a usage limit — no iteration used, the loop waits for the reset, then resumes", async () => {
    // OpenCode itself retries a 429 five times; the sixth answer ends the turn with the error.
    const rateLimited: Reply = {
      error: { status: 429, message: "Rate limit reached for requests", headers: { "retry-after": "1" } },
    }
    const project = await harness().project("rate-limit", {
      pluginOptions: { strategy: "continue" },
      script: { main: (r: MockRequest) => (r.index < 6 ? rateLimited : { text: "<promise>DONE</promise>" }) },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task behind a rate limit")
    const backoff = await waitForToast(project, /^Ralph · usage limit/)
    const done = await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    const main = project.requests("main")
    expect(main).toHaveLength(7)
    expect(backoff.properties.message).toContain("Rate limit reached")
    // The resumed prompt is still iteration 1, and it went out only after the provider's reset time
    // (1 s after its last answer; the toast reaches the test later than it is sent, so it marks no moment).
    expect(main[6]?.lastUser).toMatch(/iteration 1 of 6 · resuming/)
    expect(main[6]!.at - main[5]!.at).toBeGreaterThanOrEqual(900)
    expect(done.properties.message).toContain("finished in 1 iteration")
  })
})

describe("user abort", () => {
  it("Esc while the model streams: the loop pauses and sends nothing until the user speaks again", async () => {
    const stream = gate()
    const project = await harness().project("esc", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: [
          { text: "a long answer that streams very slowly indeed", holdAfterFirstChunk: stream.opened },
          { text: "<promise>DONE</promise>" },
        ],
      },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "a slow task").catch(() => undefined)
    await waitForStreamedText(project, /^a long/)
    await project.client.session.abort({ path: { id: session } })
    const paused = await waitForToast(project, /paused/)
    stream.open()
    expect(paused.properties.message).toMatch(/interrupted/)
    const [loop] = await waitForLoopEnd(project, { phase: "paused" })
    expect(loop?.detail).toMatch(/interrupted/)
    expect(project.requests("main")).toHaveLength(1)

    await say(project, session, "go on please")
    await waitForToast(project, /resumed/)
    await waitForToast(project, /^Ralph · done/)
    expect(project.requests("main")).toHaveLength(2)
  })
})

describe("permission pending", () => {
  it("a tool waiting on a permission gets no prompt while it waits", async () => {
    const project = await harness().project("permission", {
      pluginOptions: { strategy: "continue" },
      opencodeConfig: { permission: { bash: "ask" } },
      script: {
        main: (r: MockRequest) =>
          r.index === 0
            ? { toolCalls: [{ name: "bash", args: { command: "echo hi", description: "Say hi" } }] }
            : r.lastRole === "tool"
              ? { text: "ran the command" }
              : { text: "<promise>DONE</promise>" },
      },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "run a command").catch(() => undefined)
    const asked = await project.events.waitFor((e) => e.type === "permission.asked", "permission.asked")
    expect(project.requests("main")).toHaveLength(1)

    const { error } = await project.client.postSessionIdPermissionsPermissionId({
      path: { id: session, permissionID: String(asked.properties.id) },
      body: { response: "once" },
    })
    expect(error).toBeUndefined()
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    // Nothing marks "the plugin let the wait pass" (OpenCode sends no idle while a permission is
    // asked), so the whole wait is checked afterwards: the loop's only prompt after /ralph came
    // after turn 1 had ended, and no iteration started before it.
    const turnOneEnded = await project.events.waitFor(
      (e) => e.type === "session.idle" && e.properties.sessionID === session,
      "turn 1's idle",
    )
    const userMessages = project.events.of(
      "message.updated",
      (e) => e.properties.info?.role === "user" && e.properties.info?.sessionID === session,
    )
    const userMessageIDs = [...new Set(userMessages.map((e) => String(e.properties.info.id)))]
    expect(userMessageIDs).toHaveLength(2)
    const secondAt = userMessages.find((e) => e.properties.info.id === userMessageIDs[1])!.at
    expect(secondAt).toBeGreaterThan(turnOneEnded.at)
    expect(
      project.events.of(
        "tui.toast.show",
        (e) => /^Ralph [2-9]/.test(String(e.properties.title)) && e.at < turnOneEnded.at,
      ),
    ).toEqual([])
    expect(prompted(project)).toHaveLength(2)
  })
})

describe("duplicate idles", () => {
  it("two more idles for one turn end give exactly one continuation", async () => {
    const project = await harness().project("duplicate-idle", {
      pluginOptions: { strategy: "continue", settleMs: 1_500 },
      script: { main: [{ text: "working" }, { text: "<promise>DONE</promise>" }] },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "a task").catch(() => undefined)
    await project.events.waitFor(
      (e) => e.type === "session.idle" && e.properties.sessionID === session,
      "the first idle",
    )
    // Aborting an idle session makes OpenCode publish session.idle again.
    await project.client.session.abort({ path: { id: session } })
    await project.client.session.abort({ path: { id: session } })
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    // The turn's own idle and one for each abort.
    const idlesBeforeSecondTurn = project.events
      .of("session.idle", (e) => e.properties.sessionID === session)
      .filter((e) => e.at < project.requests("main")[1]!.at)
    expect(idlesBeforeSecondTurn).toHaveLength(3)
    expect(project.requests("main")).toHaveLength(2)
    expect(toastTitles(project)).not.toContain("Ralph · paused")
  })
})

describe("auth error", () => {
  it("stops and says why", async () => {
    const project = await harness().project("auth", {
      script: { main: [{ error: { status: 401, message: "Incorrect API key provided" } }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task")
    const stop = await waitForToast(project, /authentication failed/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "auth-error" })
    expect(stop.properties.variant).toBe("error")
    expect(stop.properties.message).toContain("Incorrect API key provided")
    expect(project.requests("main")).toHaveLength(1)
    expect(project.requests("compaction")).toHaveLength(0)
  })
})

describe("context overflow", () => {
  it("continues in a fresh session with OpenCode's own compaction summary, even with strategy continue", async () => {
    const project = await harness().project("overflow", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: [
          {
            error: {
              status: 400,
              message: "This model's maximum context length is 8192 tokens. context_length_exceeded",
            },
          },
          { text: "<promise>DONE</promise>" },
        ],
        compaction: [{ text: "COMPACTED-HANDOFF: half the files are done" }],
      },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "a big task")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(project.requests("compaction")).toHaveLength(1) // OpenCode's; the loop reused it
    expect(selectedSessions(project)).toHaveLength(1)
    const [fresh] = selectedSessions(project)
    expect(await sessionIDs(project)).toEqual([first, fresh].sort())
    const restart = prompted(project).at(-1)
    expect(restart?.lastUser).toContain("COMPACTED-HANDOFF")
    expect(restart?.lastUser).toMatch(/iteration 2 of 6 · fresh session/)
    // OpenCode's own auto-continue was switched off: the old session got no "continue" turn.
    const { data: messages } = await project.client.session.messages({ path: { id: first } })
    expect(
      (messages ?? []).filter((m) => m.info.role === "user" && m.parts.some((p) => p.type === "text" && !p.synthetic))
        .length,
    ).toBe(1)
  })
})
