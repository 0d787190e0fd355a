// Benchmark 6 — the completion check on a huge turn (issue 7): what the plugin does with an ended
// turn before it decides — read the turn out of the messages (readTurn) and decide on it (the
// promise, the RALPH_STATUS block, the progress fingerprint, the breaker) — for a 5 MB assistant
// message against 1 MB and 1 KB ones. Three 5 MB shapes: prose ending with the promise; prose without it;
// and a hostile one made of what the patterns look for (unfinished `<promise>` tags with long
// whitespace runs, repeated status markers). Run in a child node process on the built dist/.
import { fileURLToPath } from "node:url"
import type { Message, Part } from "@opencode-ai/sdk"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface PromiseCheckCase {
  name: string
  bytes: number
  medianMs: number
  /** Megabytes of assistant text checked per second. */
  mbPerSecond: number
  decision: string
}

export interface PromiseCheckResult {
  runs: number
  cases: PromiseCheckCase[]
  /** The 5 MB time over the 1 MB time of the same shape, the worst shape (5 = linear). */
  fiveToOneMbRatio: number
  slowest5MbMs: number
}

const MB = 1024 * 1024

function prose(bytes: number): string {
  const sentence =
    "The parser now handles nested arrays; the tests for the tokenizer pass, and I moved on to the emitter. "
  return sentence.repeat(Math.ceil(bytes / sentence.length)).slice(0, bytes)
}

function hostile(bytes: number): string {
  const piece = `<promise>${" ".repeat(200)}\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\n<promise>DON `
  return piece.repeat(Math.ceil(bytes / piece.length)).slice(0, bytes)
}

function messagesWith(text: string): { info: Message; parts: Part[] }[] {
  const model = { providerID: "mock", modelID: "mock-model" }
  return [
    {
      info: { id: "msg_u", sessionID: "ses_b", role: "user", agent: "build", model, time: { created: 0 } } as Message,
      parts: [{ id: "prt_u", sessionID: "ses_b", messageID: "msg_u", type: "text", text: "the task" } as Part],
    },
    {
      info: {
        id: "msg_a",
        sessionID: "ses_b",
        role: "assistant",
        ...model,
        mode: "build",
        time: { created: 0, completed: 1 },
      } as unknown as Message,
      parts: [{ id: "prt_a", sessionID: "ses_b", messageID: "msg_a", type: "text", text } as Part],
    },
  ]
}

async function measure(): Promise<PromiseCheckResult> {
  const { readTurn } = await loadDist<typeof import("../src/loop/read-turn.js")>("opencode/read-turn.js")
  const { decide } = await loadDist<typeof import("../src/loop/decide.js")>("loop/decide.js")
  const { newLoop } = await loadDist<typeof import("../src/loop/loop.js")>("loop/loop.js")
  const { DEFAULT_SETTINGS } = await loadDist<typeof import("../src/config/schema.js")>("config/schema.js")
  const { activation: _activation, ...settings } = { ...DEFAULT_SETTINGS, statusBlock: true }
  const runs = QUICK ? 5 : 15
  const shapes: [string, (bytes: number) => string][] = [
    ["reply ending with the promise", (bytes) => `${prose(bytes - 24)}<promise>DONE</promise>`],
    ["reply without the promise", prose],
    ["hostile reply (open tags, status markers)", hostile],
  ]
  const time = (text: string): { medianMs: number; decision: string } => {
    const messages = messagesWith(text)
    const times: number[] = []
    let decision = ""
    for (let i = 0; i < runs + 2; i += 1) {
      const loop = newLoop("ses_b", "the task", settings, 0)
      const started = process.hrtime.bigint()
      const turn = readTurn(messages)
      const outcome = decide(loop, {
        turn,
        sample: { workTree: "tree", todosCompleted: 0, openTodos: [], sessionID: "ses_b" },
        now: 1,
      })
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (i >= 2) times.push(ms) // the first two warm the JIT up
      decision = outcome.decision.type
    }
    return { medianMs: median(times), decision }
  }
  const cases: PromiseCheckCase[] = []
  let worstRatio = 0
  for (const [shape, make] of shapes) {
    const [oneKb, oneMb, fiveMb] = [1024, MB, 5 * MB].map((bytes) => ({ bytes, ...time(make(bytes)) })) as [
      Measured,
      Measured,
      Measured,
    ]
    for (const m of [oneKb, oneMb, fiveMb])
      cases.push({
        name: `${label(m.bytes)} ${shape}`,
        bytes: m.bytes,
        medianMs: round(m.medianMs, 3),
        mbPerSecond: round(m.bytes / MB / (m.medianMs / 1000), 1),
        decision: m.decision,
      })
    worstRatio = Math.max(worstRatio, fiveMb.medianMs / oneMb.medianMs)
  }
  return {
    runs,
    cases,
    fiveToOneMbRatio: round(worstRatio, 2),
    slowest5MbMs: Math.max(...cases.filter((c) => c.bytes === 5 * MB).map((c) => c.medianMs)),
  }
}

type Measured = { bytes: number; medianMs: number; decision: string }
const label = (bytes: number) => (bytes >= MB ? `${bytes / MB} MB` : `${bytes / 1024} KB`)

export function runPromiseCheckBench(): Promise<PromiseCheckResult> {
  return runChild<PromiseCheckResult>(fileURLToPath(import.meta.url), [], {}, 5 * 60_000)
}

runAsChild(import.meta.url, "completion-check", measure)
