// The TUI half's commands typed with arguments in the real OpenCode TUI under tmux. OpenCode closes
// the autocomplete at the space, and with the server's command of that name left out of the TUI, the
// line goes to the model as a prompt. The plugin takes it as that command: the command acts, the
// loop is not resumed as if the user had spoken, and the model's turn is a cheap control turn.
import { afterEach, describe, expect, it } from "vitest"
import { gate, type MockRequest } from "../harness/mock-model.js"
import { startTui, type Tui } from "../harness/tui.js"
import { waitUntil } from "../harness/wait.js"

const running: Tui[] = []
afterEach(async () => {
  for (const tui of running.splice(0)) await tui.stop()
})

const isControl = (r: MockRequest) => r.lastUser.includes("[ralph-loop control]")

/** A loop whose first turn is held, paused from the TUI (zero-turn) and then let end its turn. */
async function pausedLoop(name: string): Promise<Tui> {
  const held = gate()
  const tui = await startTui(name, {
    script: {
      main: (r) =>
        isControl(r)
          ? { text: "OK" }
          : r.index === 0
            ? { text: "still working", holdAfterFirstChunk: held.opened }
            : { text: `next turn ${r.index}` },
    },
  })
  running.push(tui)
  await tui.waitForScreen("Ask anything", 90_000)
  tui.type("/ralph sort the widgets")
  tui.press("Enter")
  await tui.mock.waitFor(() => tui.requests("main").length >= 1, 60_000, "the loop's first request")
  await waitUntil(() => tui.loops()[0]?.phase === "running", "the loop running on disk")
  tui.type("/ralph-pause")
  await tui.waitForScreen("/ralph-pause")
  tui.press("Enter")
  await waitUntil(() => tui.loops()[0]?.phase === "paused", "the loop paused on disk", 60_000)
  held.open()
  await waitUntil(() => tui.requests("main")[0]?.endedAt !== undefined, "the loop's first turn to end", 60_000)
  return tui
}

/** Types `line` with its arguments and presses Enter; resolves with the model's request it caused, once answered. */
async function typeLine(tui: Tui, line: string, name: string): Promise<MockRequest> {
  const before = tui.requests("main").length
  tui.type(line)
  await tui.waitForScreen(line)
  tui.press("Enter")
  const request = () =>
    tui
      .requests("main")
      .slice(before)
      .find((r) => r.lastUser.includes(`/${name}`))
  await waitUntil(
    () => request()?.endedAt !== undefined,
    `the model's request for "${line}" to be answered`,
    60_000,
    () => JSON.stringify(tui.requests("main").map((r) => r.lastUser.slice(0, 80))),
  )
  return request()!
}

describe("TUI commands typed with arguments", () => {
  it("`/ralph-pause now` on a paused loop leaves it paused, and its turn is a control turn", async () => {
    const tui = await pausedLoop("typed-pause")
    const request = await typeLine(tui, "/ralph-pause now", "ralph-pause")
    expect(tui.loops()[0]?.phase).toBe("paused")
    expect(isControl(request)).toBe(true)
    await tui.waitForScreen("The loop is already paused")
    // Nothing of the loop was sent after its first turn: only the control turn.
    expect(tui.requests("main").filter((r) => !isControl(r))).toHaveLength(1)
  })

  it("`/ralph-hint use pnpm` queues the hint without resuming; the loop's next prompt carries it", async () => {
    const tui = await pausedLoop("typed-hint")
    const request = await typeLine(tui, "/ralph-hint use pnpm", "ralph-hint")
    expect(isControl(request)).toBe(true)
    await waitUntil(
      () => tui.loops()[0]?.hints.includes("use pnpm"),
      "the hint queued on disk",
      30_000,
      () => JSON.stringify(tui.loops()[0]?.hints),
    )
    expect(tui.loops()[0]?.phase).toBe("paused")
    expect(tui.requests("main").filter((r) => !isControl(r))).toHaveLength(1)

    tui.type("/ralph-resume")
    await tui.waitForScreen("/ralph-resume")
    tui.press("Enter")
    await tui.mock.waitFor(
      () => tui.requests("main").filter((r) => !isControl(r)).length >= 2,
      60_000,
      "the resumed loop's next request",
    )
    expect(tui.requests("main").filter((r) => !isControl(r))[1]?.lastUser).toContain("use pnpm")
  })
})
