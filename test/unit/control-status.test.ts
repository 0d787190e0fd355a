// The control channel's `status` verb (the TUI's /ralph-status dialog asks it): its answer is the very
// text the chat command /ralph-status shows in that session — budgets, calls, hints, checkpoints,
// how an ended loop ended and its report, the continuations where no loop runs — and it changes
// nothing. Real files, the real channel and the plugin's act; OpenCode is a stand-in.
import type { Part } from "@opencode-ai/sdk"
import { afterEach, describe, expect, it } from "vitest"
import { ControlTurns } from "../../src/engine/control-turns.js"
import { CONTROL_MARKER } from "../../src/host/commands.js"
import { runControl } from "../../src/commands/control.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import type { RalphContext } from "../../src/engine/context.js"
import { ContinuationWatch } from "../../src/continuations/watch.js"
import { ControlChannel } from "../../src/control/channel.js"
import { sendControl } from "../../src/control/client.js"
import { CONTROL_DIR, parseRequest } from "../../src/control/request.js"
import { controlAct } from "../../src/control/serve.js"
import { newLoop, type Loop, type LoopSettings } from "../../src/loop/loop.js"
import { LoopManager } from "../../src/loop/manager.js"
import type { Host } from "../../src/host/port.js"
import { TuiActions } from "../../src/tui/actions.js"
import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { existsSync, mkdirSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { LoopStore } from "../../src/store/loop-store.js"
import { worktreePath } from "../../src/worktrees/names.js"
import { tempDirs } from "../temp-dirs.js"
import { recordLoop, STEADY, T0 } from "./status-fixture.js"

const tempDir = tempDirs()
const channels: ControlChannel[] = []
afterEach(() => {
  for (const c of channels.splice(0)) c.dispose()
})

const NOW = Date.UTC(2025, 0, 6, 9)
const { activation: _activation, ...defaults } = DEFAULT_SETTINGS
const settings: LoopSettings = { ...defaults, settleMs: 0, notify: { ...defaults.notify, desktop: false } }

/** A plugin instance's context with a live loop in ses_live and, on disk, an ended one of ses_old. */
function plugin() {
  const directory = tempDir("ralph-control-status-")
  const toasts: string[] = []
  const api = { toast: (_v: string, title: string) => toasts.push(title), log: () => undefined } as unknown as Host
  const manager = new LoopManager(() => undefined)
  const { loop } = manager.start("ses_live", "count the widgets", settings, NOW)
  manager.addHint(loop, "look in the drawer")
  const ended: Loop = {
    ...newLoop("ses_old", "sort the gears", settings, NOW - 60_000),
    phase: "stopped",
    stopReason: "completed",
  }
  const ctx = {
    directory,
    api,
    manager,
    continuations: new ContinuationWatch(),
    controlTurns: new ControlTurns(),
    settings: { current: DEFAULT_SETTINGS },
    parallel: { current: () => undefined },
    worktree: () => undefined,
    savedLoops: async () => [{ loop: ended, savedAt: NOW - 30_000 }],
    loopHistory: async () => [],
    now: () => NOW,
  } as unknown as RalphContext
  const c = new ControlChannel(directory, controlAct(ctx), () => undefined)
  channels.push(c)
  c.start()
  return { ctx, directory, loop, toasts }
}

/** What the chat command /ralph-status shows in `sessionID`: the message's text between the marker and the "Reply OK" line. */
async function chatStatus(ctx: RalphContext, sessionID: string): Promise<string> {
  const parts: Part[] = [{ id: "prt_1", sessionID, messageID: "", type: "text", text: "/ralph-status" }]
  await runControl(ctx, "ralph-status", sessionID, "", parts)
  const text = parts[0]?.type === "text" ? parts[0].text : ""
  return text.slice(`${CONTROL_MARKER} /ralph-status\n\n`.length, text.lastIndexOf("\n\n(This message is for the user"))
}

describe("the control channel's status", () => {
  it("is a request with the session asked about, and no loop or text needed", () => {
    const id = "1700000000000-0123abcd"
    expect(parseRequest(id, JSON.stringify({ id, verb: "status", session: "ses_live", from: "the TUI" }))).toEqual({
      ok: true,
      request: { id, verb: "status", session: "ses_live", from: "the TUI" },
    })
    expect(parseRequest(id, JSON.stringify({ id, verb: "status", session: "" })).ok).toBe(false)
  })

  it("answers a live loop's session with /ralph-status's own text: budgets, calls, queued hints", async () => {
    const { ctx, directory, loop, toasts } = plugin()
    const outcome = await sendControl(directory, { verb: "status", session: "ses_live", from: "the TUI" })
    expect(outcome).toMatchObject({ status: "done", title: "Ralph · status" })
    expect(outcome.message).toContain("Ralph loop — running")
    expect(outcome.message).toMatch(/^Budgets: tokens 0 of [\d,]+ · cost 0\.00 of /m)
    expect(outcome.message).toMatch(/^Calls: 0 of \d+ this window/m)
    expect(outcome.message).toContain("Queued hints: 1")
    // Read only: the loop is as it was, and no toast (the TUI shows the answer in a dialog).
    expect(loop.phase).toBe("running")
    expect(loop.hints).toHaveLength(1)
    expect(toasts).toEqual([])
    expect(outcome.message).toBe(await chatStatus(ctx, "ses_live"))
  })

  it("answers an ended loop's session with how it ended and its report, and a session without a loop with the continuations", async () => {
    const { ctx, directory } = plugin()
    const old = await sendControl(directory, { verb: "status", session: "ses_old" })
    expect(old.message).toContain("Ralph loop — ended")
    expect(old.message).toContain("Report: not written")
    expect(old.message).toBe(await chatStatus(ctx, "ses_old"))
    const none = await sendControl(directory, { verb: "status", session: "ses_none" })
    expect(none.message).toContain("No Ralph loop in this session.")
    expect(none.message).toContain("Continuations in this session:")
    expect(none.message).toBe(await chatStatus(ctx, "ses_none"))
  })

  it("asked outside any session (the TUI's home), lists the project's loops and no session's continuations", async () => {
    const { directory } = plugin()
    const home = await sendControl(directory, { verb: "status" })
    expect(home.status).toBe("done")
    expect(home.message).toContain("Loops in this project")
    expect(home.message).toContain("count the widgets")
    expect(home.message).not.toContain("Continuations in this session")
  })
})

describe("the TUI's /ralph-status asks the server plugin", () => {
  const tuiActions = (directory: string) => new TuiActions({} as TuiPluginApi, directory, async () => undefined)

  it("and shows its answer: the text of the chat command", async () => {
    const { ctx, directory } = plugin()
    mkdirSync(join(directory, ".opencode"))
    const asked = await tuiActions(directory).serverStatus("ses_live")
    expect(asked).toEqual({ ok: true, title: "Ralph · status", message: await chatStatus(ctx, "ses_live") })
  })

  it("says why it has no answer when no plugin takes the request, and leaves no request behind", async () => {
    const directory = tempDir("ralph-control-status-")
    mkdirSync(join(directory, ".opencode"))
    expect(await tuiActions(directory).serverStatus("ses_live")).toEqual({
      ok: false,
      why: expect.stringContaining("did not answer"),
    })
    expect(readdirSync(join(directory, CONTROL_DIR)).filter((name) => name !== ".tmp")).toEqual([])
  }, 20_000)

  it("does not ask an ended worktree loop's instance (it may be gone, its worktree being removed), nor write in its worktree", async () => {
    const directory = tempDir("ralph-control-status-")
    const worktree = worktreePath(directory, "done")
    mkdirSync(worktree, { recursive: true })
    await recordLoop(new LoopStore(worktree), "ses_done", "built in a worktree", STEADY, {
      end: "completed",
      startAt: T0,
    })
    expect(await tuiActions(directory).serverStatus("ses_done")).toEqual({ ok: false, why: undefined })
    expect(existsSync(join(worktree, CONTROL_DIR))).toBe(false)
  })

  it("asks a live worktree loop's own instance, in its worktree, about that loop's session", async () => {
    const directory = tempDir("ralph-control-status-")
    const worktree = worktreePath(directory, "feat")
    mkdirSync(worktree, { recursive: true })
    await recordLoop(new LoopStore(worktree), "ses_tree", "build it in a worktree", STEADY, { startAt: T0 })
    const asked: Array<string | undefined> = []
    const c = new ControlChannel(
      worktree,
      async (r) => {
        asked.push(r.session)
        return { ok: true, title: "Ralph · status", message: "the worktree's own" }
      },
      () => undefined,
    )
    channels.push(c)
    c.start()
    expect(await tuiActions(directory).serverStatus("ses_tree")).toEqual({
      ok: true,
      title: "Ralph · status",
      message: "the worktree's own",
    })
    expect(asked).toEqual(["ses_tree"])
  })

  it("does not ask, nor make the plugin's folders, in a folder without .opencode/", async () => {
    const directory = tempDir("ralph-control-status-")
    expect(await tuiActions(directory).serverStatus(undefined)).toEqual({ ok: false, why: undefined })
    expect(readdirSync(directory)).toEqual([])
  })
})
