// The TUI half in the real OpenCode TUI under tmux: zero-turn commands (the model's request log shows
// none of them), the sidebar panel, and what the user sees of each on the screen.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { packageDir } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { startTui, type Tui } from "../harness/tui.js"
import { waitUntil } from "../harness/wait.js"

const running: Tui[] = []
afterEach(async () => {
  for (const tui of running.splice(0)) await tui.stop()
})

async function open(name: string, options: Parameters<typeof startTui>[1] = {}): Promise<Tui> {
  const tui = await startTui(name, options)
  running.push(tui)
  await tui.waitForScreen("Ask anything", 90_000)
  return tui
}

const isControl = (r: MockRequest) => r.lastUser.includes("[ralph-loop control]")

// A toast is looked for by its message: its title row can be hidden behind the session's first
// message when that is at the top of the screen (docs/opencode-notes.md).

/** Types a slash command whole and presses Enter (the autocomplete's first entry runs). */
async function slash(tui: Tui, name: string) {
  tui.type(`/${name}`)
  await tui.waitForScreen(`/${name}`)
  tui.press("Enter")
}

/** Starts a loop from the prompt (a server command: it goes to the model) and waits until the model is mid-reply. */
async function startLoop(tui: Tui, task: string) {
  tui.type(`/ralph ${task}`)
  tui.press("Enter")
  await tui.mock.waitFor(() => tui.requests("main").length >= 1, 60_000, "the loop's first request")
  await waitUntil(() => tui.loops()[0]?.phase === "running", "the loop running on disk")
}

/**
 * /ralph-help's dialog, then /ralph-remember's entry landing in memory.md and /ralph-memory showing
 * it; the model gets no request for any of them. Played before the TUI's first loop.
 */
async function helpAndMemory(tui: Tui) {
  await slash(tui, "ralph-help")
  await tui.waitForScreen("Ralph loop — give a task once")
  // Waited for, not read from the first frame that has the dialog: it may hold part of it.
  await tui.waitForScreen("these run here, no model turn:")
  tui.press("Escape")
  await tui.waitForScreenWithout("Ralph loop — give a task once")

  await slash(tui, "ralph-remember")
  await tui.waitForScreen("Remember for every loop of this project")
  tui.type("use pnpm, never npm")
  tui.press("Enter")
  const memoryFile = join(tui.dir, ".opencode", "ralph-loop", "memory.md")
  await waitUntil(
    () => existsSync(memoryFile) && readFileSync(memoryFile, "utf8").includes("use pnpm, never npm"),
    "the entry in memory.md",
  )
  await tui.waitForScreenWithout("Remember for every loop of this project")

  await slash(tui, "ralph-memory")
  await tui.waitForScreen(/Ralph loop · project memory[\s\S]*use pnpm, never npm/)
  tui.press("Escape")
  await tui.waitForScreenWithout("Ralph loop · project memory")
  expect(tui.requests()).toEqual([])
}

describe("zero-turn commands in the TUI", () => {
  it("/ralph-help, /ralph-remember and /ralph-memory before a loop; then /ralph-status on a running loop shows the server's /ralph-status text in a dialog; /ralph-hint asks for a hint that the loop's next prompt carries; the model gets no request for any of them", async () => {
    const held = gate()
    const tui = await open("status", {
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : r.index === 0
              ? { text: "working on it slowly", holdAfterFirstChunk: held.opened }
              : { text: "<promise>DONE</promise>" },
      },
    })
    // One TUI for both (each start of the TUI is its longest step): the help and memory dialogs first.
    await helpAndMemory(tui)
    await startLoop(tui, "count the widgets")
    await slash(tui, "ralph-status")
    // The text /ralph-status shows in the chat (commands/status.ts), through the control channel:
    // waited for whole (the dialog is laid out again once it is made wide, so a frame may hold part of it).
    await tui.waitForScreen("Ralph loop — running")
    await tui.waitForScreen(/Budgets: tokens [\d,]+ of [\d,]+/)
    const screen = await tui.waitForScreen(/Calls: \d+ of \d+ this window/)
    expect(screen).toContain("Task: count the widgets")
    expect(screen).toMatch(/Iteration 1 of \d+ · restarts/)
    expect(screen).toMatch(/Budgets: tokens [\d,]+ of [\d,]+/)
    expect(screen).toMatch(/Calls: \d+ of \d+ this window/)
    expect(screen).not.toContain("The shorter status")
    tui.press("Escape")
    await tui.waitForScreenWithout("Ralph loop — running")

    await slash(tui, "ralph-hint")
    await tui.waitForScreen("Hint for the next prompt (once)")
    tui.type("look in the blue drawer")
    tui.press("Enter")
    await tui.waitForScreen("The next prompt of the loop will carry your hint")
    await waitUntil(
      () => tui.loops()[0]?.hints.includes("look in the blue drawer"),
      "the hint queued in the loop's state",
    )

    // The loop goes on and ends: every request the model got is the loop's, none a control turn.
    held.open()
    await waitUntil(() => tui.loops()[0]?.phase === "stopped" && tui.loops()[0], "the loop to complete", 90_000)
    expect(tui.loops()[0]?.stopReason).toBe("completed")
    expect(tui.requests().filter(isControl)).toEqual([])
    expect(tui.requests("main")).toHaveLength(2)
    expect(tui.requests("main")[1]?.lastUser).toContain("look in the blue drawer")
  })
})

describe("the TUI half without the server plugin", () => {
  it("/ralph-status shows the shorter text from the files and says the server plugin did not answer; no request is left behind, none reaches the model", async () => {
    const tui = await open("no-server", { withPlugin: false })
    await slash(tui, "ralph-status")
    const screen = await tui.waitForScreen("The shorter status, read from the loops' files")
    expect(screen).toMatch(/the ralph-loop server plugin did\s+not\s+answer/)
    expect(screen).toContain("No Ralph loop in this project yet.")
    tui.press("Escape")
    await tui.waitForScreenWithout("The shorter status, read from the loops' files")
    const control = join(tui.dir, ".opencode", "ralph-loop", "control")
    expect(readdirSync(control).filter((name) => name !== ".tmp")).toEqual([])
    expect(tui.requests()).toEqual([])
  })
})

describe("control from the TUI", () => {
  it("/ralph-pause, /ralph-resume and /cancel-ralph act on the running loop with no model request, and each says so on the screen", async () => {
    const turns = [gate(), gate()]
    const tui = await open("control", {
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : { text: `still working ${r.index}`, holdAfterFirstChunk: turns[r.index]?.opened },
      },
    })
    await startLoop(tui, "sort the widgets")
    await slash(tui, "ralph-pause")
    await tui.waitForScreen("The loop is paused at iteration 1")
    await waitUntil(() => tui.loops()[0]?.phase === "paused", "the loop paused on disk")
    turns[0]?.open()
    await slash(tui, "ralph-resume")
    await tui.waitForScreen("The loop goes on at iteration")
    await tui.mock.waitFor(() => tui.requests("main").length >= 2, 60_000, "the resumed loop's next request")
    await slash(tui, "cancel-ralph")
    await tui.waitForScreen("The Ralph loop ended at iteration")
    await waitUntil(() => tui.loops()[0]?.phase === "stopped", "the loop stopped on disk")
    expect(tui.loops()[0]?.stopReason).toBe("cancelled")
    turns[1]?.open()
    expect(tui.requests().filter(isControl)).toEqual([])
    expect(tui.requests("main")).toHaveLength(2)
  })
})

describe("control from another process", () => {
  it("`ralph-loop pause` in another terminal pauses the loop the TUI shows, and the sidebar says so", async () => {
    const held = gate()
    const tui = await open("cli-pause", {
      script: { main: [{ text: "still working", holdAfterFirstChunk: held.opened }] },
    })
    await startLoop(tui, "count the gears")
    await tui.waitForScreen(/iteration 1 of \d+/)
    const cli = spawnSync(
      process.execPath,
      [join(packageDir(), "dist", "cli", "main.js"), "pause", "--project", tui.dir],
      { env: tui.env, encoding: "utf8", timeout: 60_000 },
    )
    expect(cli.status, `${cli.stdout}${cli.stderr}`).toBe(0)
    await waitUntil(() => tui.loops()[0]?.phase === "paused", "the loop paused on disk")
    await tui.waitForScreen(/Ralph loop\s+paused/)
    held.open()
    expect(tui.requests("main")).toHaveLength(1)
  })
})

describe("the sidebar panel", () => {
  it("shows the session's loop, and its iteration advances while the loop runs; once it completed, whether that was verified", async () => {
    const turns = [gate(), gate()]
    const tui = await open("sidebar", {
      script: {
        main: (r) =>
          r.index < 2
            ? { text: `still working ${r.index}`, holdAfterFirstChunk: turns[r.index]?.opened }
            : { text: "<promise>DONE</promise>" },
      },
    })
    await startLoop(tui, "polish the widgets")
    expect(await tui.waitForScreen(/iteration 1 of \d+/)).toContain("Ralph loop")
    turns[0]?.open()
    await tui.waitForScreen(/iteration 2 of \d+/)
    turns[1]?.open()
    await tui.waitForScreen(/ended: completed/)
    expect(tui.loops()[0]?.iteration).toBe(3)
    // What the completion rested on (issue 39), under its state: no check is configured, so nothing was verified.
    await tui.waitForScreen(/ended: completed *\n[^\n]*not verified: no check ran *\n/)
    // The full-screen view says it for the selected loop too.
    await slash(tui, "ralph-loops")
    await tui.waitForScreen("Evidence: not verified: no check ran · 0 file(s) changed")
  })
})

describe("/ralph-rollback in the TUI", () => {
  it("the picker lists the loop's checkpoints; choosing one and confirming puts its files back, with no model request", async () => {
    let tui!: Tui
    // Iteration n writes work.txt "version n" (iteration 2 also extra.txt); the third promises.
    const iterations = (r: MockRequest): Reply => {
      if (isControl(r)) return { text: "OK" }
      const iteration = tui.requests("main").filter((q) => q.lastRole === "user").length
      if (r.lastRole === "tool")
        return { text: iteration >= 3 ? "All done. <promise>DONE</promise>" : `Iteration ${iteration} written.` }
      const writes = [{ name: "write", args: { filePath: "work.txt", content: `version ${iteration}\n` } }]
      if (iteration === 2)
        writes.push({ name: "write", args: { filePath: "extra.txt", content: "only in iteration 2 and later\n" } })
      return { toolCalls: writes }
    }
    tui = await open("rollback", { pluginOptions: { strategy: "continue" }, script: { main: iterations } })
    await startLoop(tui, "write the work file three times")
    await waitUntil(() => tui.loops()[0]?.phase === "stopped" && tui.loops()[0], "the loop to complete", 120_000)
    expect(tui.loops()[0]?.stopReason).toBe("completed")
    const file = (name: string) => join(tui.dir, name)
    expect(readFileSync(file("work.txt"), "utf8")).toBe("version 3\n")
    const before = tui.requests().length

    await slash(tui, "ralph-rollback")
    // Newest first: 3, 2, 1, 0 — each with what it is.
    const picker = await tui.waitForScreen("0 · before the loop")
    expect(picker).toMatch(/Roll back loop/)
    expect(picker).toMatch(/3 · iteration 3/)
    expect(picker).toMatch(/1 · iteration 1 .*1 file changed/)
    tui.press("Down", "Down")
    tui.press("Enter")
    await tui.waitForScreen(/Roll back\?[\s\S]*checkpoint 1 · iteration 1|checkpoint 1 · iteration 1[\s\S]*Roll back\?/)
    tui.press("Enter")
    await tui.waitForScreen("The work tree is back at checkpoint 1.")
    expect(readFileSync(file("work.txt"), "utf8")).toBe("version 1\n")
    expect(existsSync(file("extra.txt"))).toBe(false)
    expect(tui.requests()).toHaveLength(before)
  })
})

describe("the full-screen view", () => {
  it("/ralph-loops shows the project's loops and the selected loop's iteration table; p pauses, r resumes, c cancels it with no model request; b opens the rollback picker, Esc closes it; Esc goes back to the session", async () => {
    const held = gate()
    const tui = await open("view", {
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : r.index === 0
              ? { text: "first pass done" }
              : { text: "still working", holdAfterFirstChunk: held.opened },
      },
    })
    await startLoop(tui, "tidy the widgets")
    await tui.mock.waitFor(() => tui.requests("main").length >= 2, 60_000, "the loop's second request")
    await waitUntil(
      () => tui.loops()[0]?.iteration === 2 && tui.loops()[0]?.phase === "running",
      "iteration 2 running on disk",
    )
    const loop = tui.loops()[0]!

    await slash(tui, "ralph-loops")
    await tui.waitForScreen(/^\s*iteration\s+decided\s+decision/m)
    await tui.waitForScreen("↑/↓ select · p pause")
    await tui.waitForScreen(/^\s*1\s+\d\d:\d\d:\d\d\s+restart\s+\d+/m)
    // The view shows the files as its last watched read found them: iteration 2 comes within a second.
    await tui.waitForScreen(new RegExp(`› ${loop.id.slice(0, 24)} · running · 2/\\d+ · .* · tidy the widgets`))
    expect(await tui.waitForScreen("problems ")).toContain(loop.id.slice(0, 24))

    tui.press("p")
    await waitUntil(
      () => tui.loops()[0]?.phase === "paused",
      "the loop paused on disk",
      60_000,
      () => `${tui.loops()[0]?.phase}\n${tui.screen()}`,
    )
    await tui.waitForScreen(new RegExp(`› ${loop.id.slice(0, 24)} · paused · 2/`))
    // Resumed while its turn is still under way: it runs again, and that turn goes on (no new prompt).
    tui.press("r")
    await waitUntil(
      () => tui.loops()[0]?.phase === "running",
      "the loop running again on disk",
      60_000,
      () => `${tui.loops()[0]?.phase}\n${tui.screen()}`,
    )
    await tui.waitForScreen(new RegExp(`› ${loop.id.slice(0, 24)} · running · 2/`))
    tui.press("c")
    await waitUntil(
      () => tui.loops()[0]?.phase === "stopped",
      "the loop cancelled on disk",
      60_000,
      () => `${tui.loops()[0]?.phase}\n${tui.screen()}`,
    )
    expect(tui.loops()[0]?.stopReason).toBe("cancelled")
    await tui.waitForScreen(new RegExp(`› ${loop.id.slice(0, 24)} · ended: cancelled · 2/`))
    // The rollback picker over the view (an ended loop may be rolled back); Esc closes it and leaves the view.
    tui.press("b")
    await tui.waitForScreen("0 · before the loop")
    await tui.waitForScreen(`Roll back loop ${loop.id.slice(0, 24)}`)
    tui.press("Escape")
    await tui.waitForScreenWithout("0 · before the loop")
    await tui.waitForScreen("↑/↓ select · p pause")
    tui.press("Escape")
    await tui.waitForScreenWithout("↑/↓ select")
    // Back in the session: its sidebar panel (the line under "Ralph loop" ends with the state).
    await tui.waitForScreen(/Ralph loop *\n[^\n]* ended: cancelled *\n/)
    held.open()
    expect(tui.requests().filter(isControl)).toEqual([])
    expect(tui.requests("main")).toHaveLength(2)
  })
})
