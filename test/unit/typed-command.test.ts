// A TUI command typed with arguments reaches chat.message as plain text ("/ralph-pause now"): it is
// that command, acted on as the server's command is, and never the user speaking to the loop.
import type { Part } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import { ControlTurns } from "../../src/engine/control-turns.js"
import { CONTROL_MARKER } from "../../src/host/commands.js"
import { typedCommand } from "../../src/commands/typed-command.js"
import type { RalphContext } from "../../src/engine/context.js"
import { ContinuationWatch } from "../../src/continuations/watch.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import { chatMessageHook } from "../../src/hooks/chat-message.js"
import { LoopManager } from "../../src/loop/manager.js"
import { loop as makeLoop, user } from "./fixtures.js"

describe("typedCommand", () => {
  it.each([
    ["/ralph-pause", { name: "ralph-pause", args: "" }],
    ["/ralph-pause now", { name: "ralph-pause", args: "now" }],
    ["/ralph-hint use pnpm, not npm", { name: "ralph-hint", args: "use pnpm, not npm" }],
    ["/ralph-hint\nuse pnpm\nand vitest", { name: "ralph-hint", args: "use pnpm\nand vitest" }],
    ["/cancel-ralph   now  ", { name: "cancel-ralph", args: "now" }],
    ["/ralph-rollback 2", { name: "ralph-rollback", args: "2" }],
    ["/ralph-remember run the linter first", { name: "ralph-remember", args: "run the linter first" }],
    ["/ralph-loops please", { name: "ralph-loops", args: "please" }],
  ])("%j is the command", (text, expected) => {
    expect(typedCommand(text)).toEqual(expected)
  })

  it.each([
    "/ralph add a test", // a server command the TUI does not run itself
    "/ralph-plan the widgets",
    "/ralph-pausenow",
    "/Ralph-Pause now",
    "ralph-pause now",
    " /ralph-pause", // the hook trims first; anything else is not a command
    "please /ralph-pause",
    "/",
    "",
    "/ralph-hint-x use pnpm",
  ])("%j is not", (text) => {
    expect(typedCommand(text)).toBeUndefined()
  })

  it("reads a long line in one pass (no backtracking)", () => {
    expect(typedCommand(`/ralph-hint ${" a".repeat(200_000)}`)?.args).toHaveLength(399_999)
    expect(typedCommand(`/${"x".repeat(400_000)}`)).toBeUndefined()
  })
})

describe("chat.message with a typed TUI command", () => {
  /** A paused (or waiting) loop in ses_a whose first message was given its instruction, and the hook around it. */
  function setup(phase: "paused" | "waiting" = "paused") {
    const manager = new LoopManager()
    const { loop } = manager.start("ses_a", "sort the widgets", makeLoop().settings, 0)
    manager.instructionGiven(loop)
    if (phase === "paused") manager.pause(loop, "paused with /ralph-pause", "person")
    else manager.wait(loop, { reason: "usage-limit", until: 60_000, then: "resume" }, "the provider's usage limit")
    const toasts: string[] = []
    const runnerEnded: string[] = []
    const controlTurns = new ControlTurns()
    const ctx = {
      manager,
      controlTurns,
      continuations: new ContinuationWatch(),
      newSessions: new Set<string>(),
      settings: { current: DEFAULT_SETTINGS, showUnseen: () => undefined },
      api: {
        toast: (_variant: string, title: string, message: string) => toasts.push(`${title}: ${message}`),
        log: () => undefined,
      },
      runner: { captureBaseline: () => undefined, ended: (l: { id: string }) => runnerEnded.push(l.id) },
      now: () => 1,
    } as unknown as RalphContext
    const hook = chatMessageHook(ctx)
    const send = async (text: string) => {
      const message = user(text)
      await hook(
        { sessionID: "ses_a" } as Parameters<typeof hook>[0],
        { message: message.info, parts: message.parts } as Parameters<typeof hook>[1],
      )
      return { id: message.info.id, parts: message.parts }
    }
    return { loop, toasts, runnerEnded, controlTurns, send }
  }

  const text = (parts: Part[]) => (parts[0]?.type === "text" ? parts[0].text : "")

  it("`/ralph-pause now` on a paused loop leaves it paused; its message is a control message", async () => {
    const { loop, toasts, controlTurns, send } = setup()
    const epoch = loop.userEpoch
    const sent = await send("/ralph-pause now")
    expect(loop.phase).toBe("paused")
    expect(loop.userEpoch).toBe(epoch)
    expect(text(sent.parts).startsWith(`${CONTROL_MARKER} /ralph-pause`)).toBe(true)
    expect(text(sent.parts)).toContain("The loop is already paused")
    expect(controlTurns.isControlMessage("ses_a", sent.id)).toBe(true)
    expect(toasts).toEqual(["Ralph · paused: The loop is already paused. /ralph-resume goes on."])
  })

  it("`/ralph-hint use pnpm` queues the hint and does not resume", async () => {
    const { loop, send } = setup()
    const sent = await send("/ralph-hint use pnpm")
    expect(loop.hints).toEqual(["use pnpm"])
    expect(loop.phase).toBe("paused")
    expect(text(sent.parts)).toContain("The next prompt of the loop will carry your hint (once): use pnpm")
  })

  it("`/cancel-ralph now` ends the loop", async () => {
    const { loop, runnerEnded, send } = setup()
    await send("/cancel-ralph now")
    expect(loop.phase).toBe("stopped")
    expect(loop.stopReason).toBe("cancelled")
    expect(runnerEnded).toEqual([loop.id])
  })

  it("`/cancel-ralph now` on a waiting loop ends it, and `/ralph-pause now` pauses one: neither goes on", async () => {
    const waiting = setup("waiting")
    await waiting.send("/cancel-ralph now")
    expect(waiting.loop.phase).toBe("stopped")
    const other = setup("waiting")
    await other.send("/ralph-pause now")
    expect(other.loop.phase).toBe("paused")
    expect(other.loop.wait).toBeUndefined()
  })

  it("text that only looks like one is the user speaking: the loop resumes, as before", async () => {
    const { loop, controlTurns, send } = setup()
    const sent = await send("/ralph-pausenow")
    expect(loop.phase).toBe("running")
    expect(text(sent.parts)).toBe("/ralph-pausenow")
    expect(controlTurns.isControlMessage("ses_a", sent.id)).toBe(false)
  })
})
