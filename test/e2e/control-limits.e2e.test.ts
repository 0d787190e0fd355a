// Limits that keep a loop from running away, in the real OpenCode: the circuit breaker, the call
// limit, token and cost budgets, and the RALPH_STATUS exit gate.
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import type { MockRequest } from "../harness/mock-model.js"
import { sharedHarness, toastTitles, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const prompted = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user")
const between = (project: Project, from: number, to: number) =>
  project.requests("main").filter((r) => r.at > from && r.at < to)

describe("circuit breaker", () => {
  it("no progress → OPEN (no prompts), cooldown → HALF_OPEN (one probe), progress → CLOSED", async () => {
    const project = await harness().project("breaker", {
      pluginOptions: { strategy: "continue", maxRetries: 20, noProgressThreshold: 3, cooldownMinutes: 0.05 },
      script: {
        main: (r: MockRequest) => {
          if (r.lastRole === "tool") return { text: "wrote progress.txt" }
          const turn = prompted(project).length
          if (turn <= 3) return { text: `nothing changed here, try ${"x".repeat(turn)}` }
          if (turn === 4)
            return { toolCalls: [{ name: "write", args: { filePath: "progress.txt", content: "step\n" } }] }
          return { text: "<promise>DONE</promise>" }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task that stalls, then moves")
    const open = await waitForToast(project, /circuit breaker OPEN/)
    await waitForToast(project, /circuit breaker HALF_OPEN/)
    await waitForToast(project, /circuit breaker CLOSED/)
    await waitForToast(project, /^Ralph · done/)

    expect(open.properties.message).toContain("3 iterations in a row without progress")
    // The moments are read from what the model received: toasts reach the test later than they are
    // sent (the probe's request can come before the HALF_OPEN toast), requests do not come early.
    // Three turns that change nothing (each worded differently: words are not progress), the probe, the turn after CLOSED.
    const [, , third, probe, after] = prompted(project)
    expect(prompted(project)).toHaveLength(5)
    // OPEN after turn 3: nothing is sent until the cooldown (3 s) is over.
    expect(between(project, third!.at, probe!.at)).toHaveLength(0)
    expect(probe!.at - third!.at).toBeGreaterThanOrEqual(3_000)
    // One probe turn (its request and the follow-up with the tool result), then CLOSED.
    expect(between(project, probe!.at, after!.at).map((r) => r.lastRole)).toEqual(["tool"])
    const titles = toastTitles(project)
    expect(titles.indexOf("Ralph · circuit breaker HALF_OPEN")).toBeGreaterThan(
      titles.indexOf("Ralph · circuit breaker OPEN"),
    )
    expect(titles.indexOf("Ralph · circuit breaker CLOSED")).toBeGreaterThan(
      titles.indexOf("Ralph · circuit breaker HALF_OPEN"),
    )
  })

  it("the same error five times → OPEN", async () => {
    const project = await harness().project("same-error", {
      pluginOptions: { strategy: "continue", maxRetries: 20, cooldownMinutes: 30 },
      script: {
        main: (r: MockRequest) => ({
          error: { status: 400, message: `Invalid request: tool schema rejected (req_${r.index}abc)` },
        }),
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task that keeps failing")
    const open = await waitForToast(project, /circuit breaker OPEN/)
    await waitForLoopEnd(project, { phase: "waiting", wait: "breaker" })
    expect(open.properties.message).toContain("5 iterations in a row ended in the same error")
    expect(project.requests("main")).toHaveLength(5)
  })
})

describe("calls per hour", () => {
  it("at the limit the loop waits for the window to reset, then goes on by itself", async () => {
    const words = ["alpha", "beta", "gamma", "delta"]
    const project = await harness().project("call-limit", {
      // A 12 s window: two turns fit in it even on a loaded machine.
      pluginOptions: {
        strategy: "continue",
        maxCallsPerHour: 2,
        rateLimitWindowMinutes: 0.2,
        noProgressThreshold: 100,
      },
      script: {
        main: (r: MockRequest) => ({
          text: r.index < words.length ? `working on ${words[r.index]}` : "<promise>DONE</promise>",
        }),
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task with a call limit")
    const limited = await waitForToast(project, /call limit reached/)
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(limited.properties.message).toMatch(/2 calls per window reached.*Nothing is sent until \d\d:\d\d:\d\d/)
    // The user's /ralph plus the plugin's 2 calls, then nothing until the window reset: the window
    // opened with the plugin's first call (request 1). (Read from the requests: the toast reaches the
    // test later than it is sent, so it marks no moment.)
    const main = project.requests("main")
    expect(main).toHaveLength(5)
    expect(main[3]!.at - main[1]!.at).toBeGreaterThanOrEqual(11_000)
  })
})

describe("budgets", () => {
  it("the token budget stops the loop and says so", async () => {
    const project = await harness().project("tokens", {
      pluginOptions: { strategy: "continue", maxTokens: 2_500, noProgressThreshold: 100 },
      script: {
        main: (r: MockRequest) => ({
          text: `turn ${"x".repeat(r.index + 1)}`,
          usage: { prompt_tokens: 1_000, completion_tokens: 100 },
        }),
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "an expensive task")
    const stop = await waitForToast(project, /token budget/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "token-budget" })
    expect(stop.properties.message).toMatch(/3,300 of 2,500 tokens \(maxTokens\)/)
    expect(project.requests("main")).toHaveLength(3)
  })

  it("the cost budget stops the loop and says so", async () => {
    const project = await harness().project("cost", {
      pluginOptions: { strategy: "continue", maxCost: 2 },
      opencodeConfig: {
        provider: {
          mock: {
            npm: "@ai-sdk/openai-compatible",
            name: "Mock",
            options: { baseURL: harness().mock.baseURL("cost"), apiKey: "mock" },
            models: { "mock-model": { name: "Mock Model", cost: { input: 1_000, output: 1_000 } } },
          },
        },
      },
      script: {
        main: (r: MockRequest) => ({
          text: `turn ${"y".repeat(r.index + 1)}`,
          usage: { prompt_tokens: 1_000, completion_tokens: 100 },
        }),
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a costly task")
    const stop = await waitForToast(project, /cost budget/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "cost-budget" })
    expect(stop.properties.message).toMatch(/2\.20 of 2\.00 \(maxCost\)/)
    expect(project.requests("main")).toHaveLength(2)
  })
})

describe("RALPH_STATUS exit gate", () => {
  const block = (status: string, exit: boolean) =>
    `Progress made.\n---RALPH_STATUS---\nSTATUS: ${status}\nTASKS_COMPLETED_THIS_LOOP: 1\nTESTS_STATUS: PASSING\nEXIT_SIGNAL: ${exit}\nRECOMMENDATION: none\n---END_RALPH_STATUS---`

  it("dual: COMPLETE with EXIT_SIGNAL false continues; COMPLETE twice with EXIT_SIGNAL true stops", async () => {
    const project = await harness().project("dual-gate", {
      pluginOptions: { strategy: "continue", statusBlock: true, exitGate: "dual" },
      script: { main: [{ text: block("COMPLETE", false) }, { text: block("COMPLETE", true) }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a gated task")
    const done = await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(project.requests("main")).toHaveLength(2)
    expect(project.requests("main")[0]?.lastUser).toContain("---RALPH_STATUS---")
    expect(done.properties.message).toContain("status block signalled the exit")
  })

  it("STATUS: BLOCKED pauses the loop and shows the recommendation", async () => {
    const project = await harness().project("blocked", {
      pluginOptions: { strategy: "continue", statusBlock: true },
      script: {
        main: [
          {
            text: "---RALPH_STATUS---\nSTATUS: BLOCKED\nEXIT_SIGNAL: false\nRECOMMENDATION: need the API key for the staging server\n---END_RALPH_STATUS---",
          },
        ],
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a blocked task")
    const paused = await waitForToast(project, /paused/)
    const [loop] = await waitForLoopEnd(project, { phase: "paused" })
    expect(paused.properties.message).toContain("need the API key for the staging server")
    expect(loop?.detail).toContain("need the API key for the staging server")
    expect(project.requests("main")).toHaveLength(1)
  })
})
