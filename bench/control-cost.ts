// Benchmark 8 — what a control command costs in model calls, in the real OpenCode with the
// scripted model. A loop runs three turns in one session (strategy continue, maxRetries 2) and
// stops at its limit; then /ralph-status is typed there `rounds` times, and /ralph-help once. Every
// request the mock model receives meanwhile is counted, with its body's size (what a paid model
// would bill as input; ≈ 4 bytes per token) and what that body is made of. Measured twice, on one
// server each: as main behaved before issue 17 (RALPH_LOOP_FULL_CONTROL_TURNS=1: the control turn
// is sent like any turn) and as the plugin sends it now (only the control message, a one-line
// system prompt, no tools). OpenCode 1.18.33 runs a model turn for every command, so zero requests
// is not reachable without failing the command (see BENCHMARKS.md).
import { startHarness, type Project } from "../test/harness/harness.js"
import type { MockRequest } from "../test/harness/mock-model.js"
import { waitUntil } from "../test/harness/wait.js"
import { QUICK } from "./util.js"

/** What the model is sent for one command (averages over the rounds). */
export interface RequestCost {
  requests: number
  bytes: number
  approxTokens: number
  systemBytes: number
  toolsBytes: number
  /** Messages other than the system prompt. */
  messages: number
}

export interface ControlCostResult {
  rounds: number
  /** As main sent a control command's turn: the session's whole context. */
  before: { status: RequestCost; help: RequestCost }
  after: { status: RequestCost; help: RequestCost }
  /** For scale: one turn of the loop, as the model received it. */
  loopTurn: RequestCost
}

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const bytesOf = (value: unknown) => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)))

function cost(requests: MockRequest[], per: number): RequestCost {
  const sum = (f: (r: MockRequest) => number) => requests.reduce((total, r) => total + f(r), 0) / per
  const bytes = sum((r) => r.bytes)
  return {
    requests: requests.length / per,
    bytes,
    approxTokens: Math.round(bytes / 4),
    systemBytes: sum((r) => bytesOf(r.body.messages?.filter((m) => m.role === "system"))),
    toolsBytes: sum((r) => bytesOf(r.body.tools)),
    messages: sum((r) => r.body.messages?.filter((m) => m.role !== "system").length ?? 0),
  }
}

async function measure(log: (line: string) => void, rounds: number, fullControlTurns: boolean) {
  const harness = await startHarness({ env: fullControlTurns ? { RALPH_LOOP_FULL_CONTROL_TURNS: "1" } : {} })
  try {
    const project = await harness.project("control-cost", {
      pluginOptions: { strategy: "continue", maxRetries: 2 },
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : { text: `worked on part ${"x".repeat(r.index + 1)} of the validation; more is left` },
      },
    })
    const session = await project.newSession()
    log(`control cost (${fullControlTurns ? "before" : "after"}): a loop of three turns`)
    await project.command(session, "ralph", "add input validation to every handler")
    await waitUntil(() => project.loops()[0]?.phase === "stopped", "the loop's stop", 60_000)
    await project.waitForIdle()
    const loopTurns = project.requests("main")
    const run = async (command: string, times: number) => {
      const before = project.requests().length
      // session.command resolves when the command's turn has ended; then every session is idle.
      for (let k = 0; k < times; k += 1) await runCommand(project, session, command)
      await project.waitForIdle()
      return cost(project.requests().slice(before), times)
    }
    log(`control cost: /ralph-status ×${rounds}`)
    const status = await run("ralph-status", rounds)
    const help = await run("ralph-help", 1)
    return { status, help, loopTurn: cost(loopTurns, loopTurns.length) }
  } finally {
    await harness.stop()
  }
}

async function runCommand(project: Project, session: string, command: string): Promise<void> {
  const { error } = await project.client.session.command({ path: { id: session }, body: { command, arguments: "" } })
  if (error) throw new Error(`/${command} failed: ${JSON.stringify(error)}`)
}

export async function runControlCostBench(log: (line: string) => void): Promise<ControlCostResult> {
  const rounds = QUICK ? 2 : 5
  const before = await measure(log, rounds, true)
  const after = await measure(log, rounds, false)
  return {
    rounds,
    before: { status: before.status, help: before.help },
    after: { status: after.status, help: after.help },
    loopTurn: after.loopTurn,
  }
}
