// `ralph-loop run` interrupted mid-iteration, then --resume: the loop paused through the control
// channel with its state on disk, the server it started gone (by PID), exit 130; the next run takes
// the loop back at the iteration it had reached and completes it.
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
import { savedLoops } from "../harness/loop-files.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { alive, holdingIterationTwo, runSetup, serverPid, startRun } from "./run-helpers.js"

const setup = runSetup()

describe("ralph-loop run: interrupts and --resume", () => {
  it("SIGINT while the model streams iteration 2 pauses the loop and exits 130 with no process left; --resume completes it with its counts kept", async () => {
    const hold = gate()
    const project = setup().project("run-interrupt", {
      script: { main: holdingIterationTwo(hold.opened) },
    })
    try {
      const first = startRun(setup(), project, ["build the widget"])
      await setup().mock.waitFor(() => setup().requests("run-interrupt", "main").length >= 2, 120_000, "the second iteration's request")
      first.child.kill("SIGINT")
      expect(await first.exit(), first.stderr()).toBe(EXIT.interrupted)
      const lines = first.lines()
      expect(lines).toContain("SIGINT: pausing the loop, then stopping (again to stop at once)")
      expect(lines.at(-1)).toMatch(/^ended: interrupted after 2 iterations .*paused with ralph-loop run \(SIGINT\); `ralph-loop run --resume ses_\S+` goes on .*\(exit 130\)$/)
      const firstServer = serverPid(lines) as number
      expect(alive(firstServer)).toBe(false)
      const [paused] = savedLoops(project)
      expect(paused).toMatchObject({ phase: "paused", iteration: 2, detail: "paused with ralph-loop run (SIGINT)" })

      const second = startRun(setup(), project, ["--resume"])
      expect(await second.exit(), second.stderr()).toBe(EXIT.completed)
      const resumed = second.lines()
      expect(resumed.find((l) => l.startsWith("loop "))).toBe(`loop ${paused?.id} taken back at iteration 2: build the widget — ${resumed.find((l) => l.startsWith("loop "))?.split(" — ")[1]}`)
      expect(resumed).toContain("resumed at iteration 2")
      expect(resumed.at(-1)).toMatch(/^ended: completed after [23] iterations .*\(exit 0\)$/)
      const [done] = savedLoops(project)
      expect(done).toMatchObject({ id: paused?.id, phase: "stopped", stopReason: "completed" })
      expect(alive(serverPid(resumed) as number)).toBe(false)
      expect(alive(second.child.pid as number)).toBe(false)
    } finally {
      hold.open()
    }
  })

  it("the server dies mid-iteration: the run says so and exits 1; --resume takes the loop back (the plugin's recovery) and completes it", async () => {
    const hold = gate()
    const project = setup().project("run-server-dies", {
      script: { main: holdingIterationTwo(hold.opened) },
    })
    try {
      const first = startRun(setup(), project, ["build the widget"])
      await setup().mock.waitFor(() => setup().requests("run-server-dies", "main").length >= 2, 120_000, "the second iteration's request")
      const server = serverPid(first.lines()) as number
      process.kill(-server, "SIGKILL")
      expect(await first.exit(), first.stderr()).toBe(EXIT.runnerFailure)
      expect(first.stderr()).toMatch(/the OpenCode server ended by SIGKILL while the loop ran; `ralph-loop run --resume ses_\S+` takes the loop back/)
      const [cut] = savedLoops(project)
      expect(cut).toMatchObject({ phase: "running", iteration: 2 })

      const second = startRun(setup(), project, ["--resume", cut?.id as string])
      expect(await second.exit(), second.stderr()).toBe(EXIT.completed)
      expect(second.lines().find((l) => l.startsWith("loop "))).toMatch(new RegExp(`^loop ${cut?.id} taken back at iteration 2: `))
      expect(savedLoops(project)).toEqual([expect.objectContaining({ id: cut?.id, phase: "stopped", stopReason: "completed" })])
      expect(alive(serverPid(second.lines()) as number)).toBe(false)
    } finally {
      hold.open()
    }
  })

  it("SIGTERM with --on-interrupt cancel ends the loop (cancelled, its report written) and exits 130", async () => {
    const hold = gate()
    const project = setup().project("run-cancel", {
      script: { main: (r: MockRequest): Reply => (r.index === 0 ? { text: "holding part one", holdAfterFirstChunk: hold.opened } : { text: "more" }) },
    })
    try {
      const run = startRun(setup(), project, ["build the widget", "--on-interrupt", "cancel"], { json: true })
      await setup().mock.waitFor(() => setup().requests("run-cancel", "main").length >= 1, 120_000, "the first iteration's request")
      run.child.kill("SIGTERM")
      expect(await run.exit(), run.stderr()).toBe(EXIT.interrupted)
      const events = run.events()
      expect(events.find((e) => e.type === "interrupt")).toMatchObject({ signal: "SIGTERM", action: "cancel" })
      expect(events.at(-1)).toMatchObject({ type: "ended", outcome: "cancelled", exitCode: 130, report: expect.stringMatching(/ralph_report\.md$/) })
      expect(savedLoops(project)).toEqual([expect.objectContaining({ phase: "stopped", stopReason: "cancelled" })])
      expect(alive(serverPid(run.lines()) as number)).toBe(false)
    } finally {
      hold.open()
    }
  })
})
