// `ralph-loop run` interrupted at each boundary of its phases from its start to its loop's first
// journal line (src/cli/run/phases.ts), with and without --attach, by SIGINT and by SIGTERM. The run
// is held at the boundary (RALPH_LOOP_RUN_HOLD, src/cli/run/hold-point.ts) and signalled there, so
// the signal lands exactly at it. Before /ralph is sent a signal sends nothing after it; once it is
// on its way, the loop it starts is paused through the plugin's control channel. Either way no model
// request follows the end the run printed, and no loop is left running (in the user's server, or on
// disk for the next start to take back). One OpenCode server serves every --attach case.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RunEvent } from "../../src/cli/run/events.js"
import { EXIT } from "../../src/cli/run/exit-code.js"
import { HOLD_POINTS } from "../../src/cli/run/phases.js"
import { savedLoops } from "../harness/loop-files.js"
import { startOpencodeServer, type OpencodeServer } from "../harness/opencode-server.js"
import { waitUntil } from "../harness/wait.js"
import { alive, runSetup, serverPid, startRun, type RunProcess } from "./run-helpers.js"

const setup = runSetup()
const SCRIPT = { main: [{ text: "working on it" }, { text: "All finished. <promise>DONE</promise>" }] }
/** Where the started line is journalled, and the marker a held run writes. */
const journal = (project: string) => join(project, ".opencode", "ralph-loop", "journal.jsonl")
const held = (project: string) => join(project, ".opencode", "ralph-loop-run-held")

let shared: OpencodeServer | undefined
beforeAll(async () => {
  const home = setup().project("phases-host", { script: SCRIPT })
  shared = await startOpencodeServer({ cwd: home, env: setup().env, readyDirectory: home })
})
afterAll(async () => {
  await shared?.stop()
})

/** No session of the project is busy in the server (a loop going on would keep one busy, or make one so). */
async function idle(url: string, project: string): Promise<boolean> {
  const res = await fetch(`${url}/session/status?directory=${encodeURIComponent(project)}`)
  const statuses = (await res.json()) as Record<string, { type: string }>
  return Object.values(statuses).every((s) => s.type === "idle")
}

/** Waits for the run's end, then its exit; the scope's model requests when the end was seen, and after. */
async function endOf(run: RunProcess, scope: string): Promise<{ code: number | null; atEnd: number }> {
  await run.waitForLine(/"type":"ended"/, 60_000)
  const atEnd = setup().requests(scope).length
  return { code: await run.exit(), atEnd }
}

/** The end event of a --json run. */
function endEvent(run: RunProcess): Extract<RunEvent, { type: "ended" }> | undefined {
  const last = run.events().at(-1)
  return last?.type === "ended" ? last : undefined
}

type Boundary = (typeof HOLD_POINTS)[number] | "journal.started"
/** Every boundary the run holds at, and one more: /ralph answered by the started line, the run not yet read it. */
const BOUNDARIES: readonly Boundary[] = [...HOLD_POINTS, "journal.started"]
const SENT: ReadonlySet<Boundary> = new Set(["command.sent", "journal.started"])

describe("ralph-loop run: a signal at each phase boundary", () => {
  for (const attach of [true, false])
    for (const boundary of BOUNDARIES)
      for (const signal of ["SIGINT", "SIGTERM"] as const) {
        const sent = SENT.has(boundary)
        const mode = attach ? "--attach" : "its own server"
        it(`${mode}, ${signal} at ${boundary}: ${sent ? "the loop paused" : "nothing sent"}; no model request after the end`, async () => {
          const scope = `ph-${attach ? "a" : "s"}-${boundary.replace(".", "-")}-${signal}`
          const project = setup().project(scope, { script: SCRIPT })
          const point = boundary === "journal.started" ? "command.sent" : boundary
          const run = startRun(setup(), project, ["build the widget"], {
            json: true,
            ...(attach ? { attach: shared?.url } : {}),
            env: { RALPH_LOOP_FAULT_INJECTION: "1", RALPH_LOOP_RUN_HOLD: point },
          })
          await waitUntil(() => existsSync(held(project)), `the run held at ${point}`, 60_000, run.stderr)
          if (boundary === "journal.started")
            await waitUntil(
              () => existsSync(journal(project)) && readFileSync(journal(project), "utf8").includes('"started"'),
              "the loop's started line",
            )
          run.child.kill(signal)
          const { code, atEnd } = await endOf(run, scope)
          expect(code, run.stderr()).toBe(EXIT.interrupted)
          const end = endEvent(run)
          if (sent) {
            expect(end).toMatchObject({ type: "ended", outcome: "interrupted", exitCode: 130, iteration: 1 })
            expect(end?.detail).toMatch(
              new RegExp(`^paused with ralph-loop run \\(${signal}\\); \`ralph-loop run --resume ses_`),
            )
            expect(run.events().find((e) => e.type === "interrupt")).toMatchObject({ signal, action: "pause" })
            expect(savedLoops(project)).toMatchObject([{ phase: "paused", pauseCause: "interrupt" }])
          } else {
            expect(end).toMatchObject({ type: "ended", outcome: "interrupted", exitCode: 130, loop: null })
            expect(end?.detail).toMatch(new RegExp(`^${signal} .*; no loop was started$`))
            expect(savedLoops(project)).toEqual([])
            expect(atEnd).toBe(0)
          }
          if (attach) {
            const url = shared?.url as string
            await waitUntil(() => idle(url, project), "the project's sessions idle in the user's server")
            expect(alive(shared?.pid as number)).toBe(true)
          } else {
            const pid = serverPid(run.lines())
            if (pid !== undefined) expect(alive(pid)).toBe(false)
          }
          expect(setup().requests(scope)).toHaveLength(atEnd)
          // Nothing on disk for the next start to take back and go on with.
          expect(savedLoops(project).filter((l) => l.phase !== "paused")).toEqual([])
        })
      }
})

describe("ralph-loop run --attach: SIGINT as soon as it connected (issue 47)", () => {
  it("leaves no loop running in the user's server and no model request after the end it printed", async () => {
    const project = setup().project("ph-connected", { script: SCRIPT })
    const url = shared?.url as string
    const run = startRun(setup(), project, ["build the widget"], { attach: url })
    await run.waitForLine(/^using the OpenCode server at /)
    run.child.kill("SIGINT")
    await run.waitForLine(/^ended: /)
    const atEnd = setup().requests("ph-connected").length
    expect(await run.exit(), run.stderr()).toBe(EXIT.interrupted)
    expect(run.lines().at(-1)).toMatch(/^ended: interrupted .*\(exit 130\)$/)
    await waitUntil(() => idle(url, project), "the project's sessions idle in the user's server")
    expect(savedLoops(project).filter((l) => l.phase !== "paused")).toEqual([])
    expect(setup().requests("ph-connected")).toHaveLength(atEnd)
  })
})
