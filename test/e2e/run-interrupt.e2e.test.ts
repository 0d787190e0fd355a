// `ralph-loop run` interrupted mid-iteration, then --resume: the loop paused through the control
// channel with its state on disk, the server it started gone (by PID), exit 130; the next run takes
// the loop back at the iteration it had reached and completes it.
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
import { savedLoops } from "../harness/loop-files.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import {
  alive,
  groupAlive,
  holdingIterationTwo,
  processGroup,
  runSetup,
  serverPid,
  startRun,
  usageOf,
} from "./run-helpers.js"

const setup = runSetup()

/** The scripted model with a price ($1,000 per million tokens: 100 + 20 tokens a reply are $0.12), so a cost that carries over shows. */
const priced = (scope: string) => ({
  provider: {
    mock: {
      npm: "@ai-sdk/openai-compatible",
      name: "Mock",
      options: { baseURL: setup().mock.baseURL(scope), apiKey: "mock" },
      models: { "mock-model": { name: "Mock Model", cost: { input: 1000, output: 1000 } } },
    },
  },
})

describe("ralph-loop run: interrupts and --resume", () => {
  it("SIGINT while the model streams iteration 2 pauses the loop and exits 130 with no process left (the server's whole group); --resume completes it with its counts, tokens and cost kept", async () => {
    const hold = gate()
    const project = setup().project("run-interrupt", {
      script: { main: holdingIterationTwo(hold.opened) },
      opencodeConfig: priced("run-interrupt"),
    })
    try {
      const first = startRun(setup(), project, ["build the widget"])
      await setup().mock.waitFor(
        () => setup().requests("run-interrupt", "main").length >= 2,
        120_000,
        "the second iteration's request",
      )
      // The server leads a process group of its own, which the runner stops as a whole.
      const firstServer = serverPid(first.lines()) as number
      expect(processGroup(firstServer)).toBe(firstServer)
      first.child.kill("SIGINT")
      expect(await first.exit(), first.stderr()).toBe(EXIT.interrupted)
      const lines = first.lines()
      expect(lines).toContain("SIGINT: pausing the loop, then stopping (again to stop at once)")
      expect(lines.at(-1)).toMatch(
        /^ended: interrupted after 2 iterations .*paused with ralph-loop run \(SIGINT\); `ralph-loop run --resume ses_\S+` goes on .*\(exit 130\)$/,
      )
      expect(alive(firstServer)).toBe(false)
      expect(groupAlive(firstServer)).toBe(false)
      const before = usageOf(lines)
      // The end's totals hold the cut-off turn of iteration 2 too.
      expect(before.iterations).toEqual([{ tokens: 120, cost: 0.12 }])
      expect(before.total?.tokens).toBeGreaterThanOrEqual(120)
      const [paused] = savedLoops(project)
      expect(paused).toMatchObject({ phase: "paused", iteration: 2, detail: "paused with ralph-loop run (SIGINT)" })

      const second = startRun(setup(), project, ["--resume"])
      expect(await second.exit(), second.stderr()).toBe(EXIT.completed)
      const resumed = second.lines()
      expect(resumed.find((l) => l.startsWith("loop "))).toBe(
        `loop ${paused?.id} taken back at iteration 2: build the widget — ${resumed.find((l) => l.startsWith("loop "))?.split(" — ")[1]}`,
      )
      expect(resumed).toContain("resumed at iteration 2")
      expect(resumed.at(-1)).toMatch(/^ended: completed after [23] iterations .*\(exit 0\)$/)
      const [done] = savedLoops(project)
      expect(done).toMatchObject({ id: paused?.id, phase: "stopped", stopReason: "completed" })
      // The end's totals are the whole loop's, the first run's included; each iteration line says
      // what that iteration spent (the resumed one from the last decision on, its cut-off turn too),
      // so the two runs' iteration lines add up to the end's totals.
      const after = usageOf(resumed)
      expect(after.iterations.length).toBeGreaterThan(0)
      expect(after.iterations.every((u) => u.tokens > 0)).toBe(true)
      expect(after.total?.tokens).toBeGreaterThan(before.total?.tokens as number)
      const spent = [...before.iterations, ...after.iterations]
      expect(after.total?.tokens).toBe(spent.reduce((sum, u) => sum + u.tokens, 0))
      expect(after.total?.cost).toBeCloseTo(
        spent.reduce((sum, u) => sum + u.cost, 0),
        4,
      )
      expect(alive(serverPid(resumed) as number)).toBe(false)
      expect(groupAlive(serverPid(resumed) as number)).toBe(false)
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
      await setup().mock.waitFor(
        () => setup().requests("run-server-dies", "main").length >= 2,
        120_000,
        "the second iteration's request",
      )
      const server = serverPid(first.lines()) as number
      process.kill(-server, "SIGKILL")
      expect(await first.exit(), first.stderr()).toBe(EXIT.runnerFailure)
      expect(first.stderr()).toMatch(
        /the OpenCode server ended by SIGKILL while the loop ran; `ralph-loop run --resume ses_\S+` takes the loop back/,
      )
      const [cut] = savedLoops(project)
      expect(cut).toMatchObject({ phase: "running", iteration: 2 })

      const second = startRun(setup(), project, ["--resume", cut?.id as string])
      expect(await second.exit(), second.stderr()).toBe(EXIT.completed)
      expect(second.lines().find((l) => l.startsWith("loop "))).toMatch(
        new RegExp(`^loop ${cut?.id} taken back at iteration 2: `),
      )
      expect(savedLoops(project)).toEqual([
        expect.objectContaining({ id: cut?.id, phase: "stopped", stopReason: "completed" }),
      ])
      expect(alive(serverPid(second.lines()) as number)).toBe(false)
    } finally {
      hold.open()
    }
  })

  it("SIGTERM with --on-interrupt cancel ends the loop (cancelled, its report written) and exits 130", async () => {
    const hold = gate()
    const project = setup().project("run-cancel", {
      script: {
        main: (r: MockRequest): Reply =>
          r.index === 0 ? { text: "holding part one", holdAfterFirstChunk: hold.opened } : { text: "more" },
      },
    })
    try {
      const run = startRun(setup(), project, ["build the widget", "--on-interrupt", "cancel"], { json: true })
      await setup().mock.waitFor(
        () => setup().requests("run-cancel", "main").length >= 1,
        120_000,
        "the first iteration's request",
      )
      run.child.kill("SIGTERM")
      expect(await run.exit(), run.stderr()).toBe(EXIT.interrupted)
      const events = run.events()
      expect(events.find((e) => e.type === "interrupt")).toMatchObject({ signal: "SIGTERM", action: "cancel" })
      expect(events.at(-1)).toMatchObject({
        type: "ended",
        outcome: "cancelled",
        exitCode: 130,
        report: expect.stringMatching(/ralph_report\.md$/),
      })
      expect(savedLoops(project)).toEqual([expect.objectContaining({ phase: "stopped", stopReason: "cancelled" })])
      expect(alive(serverPid(run.lines()) as number)).toBe(false)
    } finally {
      hold.open()
    }
  })
})
