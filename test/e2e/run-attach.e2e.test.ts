// `ralph-loop run --attach URL`: the loop runs in an OpenCode server the user started (a TUI's, a
// shared one); the runner follows it as it does its own, and never stops that server — not at the
// loop's end, not on SIGINT, which pauses the loop there for a later `--resume --attach`.
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
import { savedLoops } from "../harness/loop-files.js"
import { gate } from "../harness/mock-model.js"
import { startOpencodeServer, type OpencodeServer } from "../harness/opencode-server.js"
import { alive, holdingIterationTwo, runSetup, startRun } from "./run-helpers.js"

const setup = runSetup()

/** The server answers for the project (its instance is up). */
async function answers(server: OpencodeServer, project: string): Promise<boolean> {
  const res = await fetch(`${server.url}/config?directory=${encodeURIComponent(project)}`)
  return res.ok
}

describe("ralph-loop run --attach", () => {
  it("runs the loop in the user's server to its end (exit 0) and leaves that server running", async () => {
    const project = setup().project("run-attach", {
      script: { main: [{ text: "working on it" }, { text: "All finished. <promise>DONE</promise>" }] },
    })
    const server = await startOpencodeServer({ cwd: project, env: setup().env, readyDirectory: project })
    try {
      const run = startRun(setup(), project, ["build the widget"], { attach: server.url })
      expect(await run.exit(), run.stderr()).toBe(EXIT.completed)
      const lines = run.lines()
      expect(lines[0]).toBe(`using the OpenCode server at ${server.url}`)
      expect(lines.at(-1)).toMatch(/^ended: completed after 2 iterations .*\(exit 0\)$/)
      expect(setup().requests("run-attach", "main")).toHaveLength(2)
      expect(alive(server.pid)).toBe(true)
      expect(await answers(server, project)).toBe(true)
      expect(savedLoops(project)).toMatchObject([{ phase: "stopped", stopReason: "completed" }])
    } finally {
      await server.stop()
    }
  })

  it("SIGINT pauses the loop in the user's server and exits 130 with the server still running; --resume --attach completes the loop there", async () => {
    const hold = gate()
    const project = setup().project("run-attach-interrupt", {
      script: { main: holdingIterationTwo(hold.opened) },
    })
    const server = await startOpencodeServer({ cwd: project, env: setup().env, readyDirectory: project })
    try {
      const first = startRun(setup(), project, ["build the widget"], { attach: server.url })
      await setup().mock.waitFor(
        () => setup().requests("run-attach-interrupt", "main").length >= 2,
        120_000,
        "the second iteration's request",
      )
      first.child.kill("SIGINT")
      expect(await first.exit(), first.stderr()).toBe(EXIT.interrupted)
      expect(first.lines().at(-1)).toMatch(
        /^ended: interrupted after 2 iterations .*`ralph-loop run --resume ses_\S+` goes on .*\(exit 130\)$/,
      )
      expect(alive(server.pid)).toBe(true)
      const [paused] = savedLoops(project)
      expect(paused).toMatchObject({ phase: "paused", iteration: 2 })

      // The turn under way ends in the server; the paused loop sends nothing after it.
      hold.open()
      const second = startRun(setup(), project, ["--resume"], { attach: server.url })
      expect(await second.exit(), second.stderr()).toBe(EXIT.completed)
      expect(second.lines().at(-1)).toMatch(/^ended: completed after [23] iterations .*\(exit 0\)$/)
      expect(setup().requests("run-attach-interrupt", "main")).toHaveLength(3)
      expect(savedLoops(project)).toMatchObject([{ id: paused?.id, phase: "stopped", stopReason: "completed" }])
      expect(alive(server.pid)).toBe(true)
      expect(await answers(server, project)).toBe(true)
    } finally {
      hold.open()
      await server.stop()
    }
  })
})
