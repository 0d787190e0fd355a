// Benchmark 3 — context growth: what the model receives at iterations 1…20, `continue` vs
// `recreate`, in the real OpenCode with a scripted model that never writes the promise
// (maxRetries 19: 20 turns). Measured from the mock's request log: the main requests a prompt
// started (lastRole "user"), their body size in bytes and the text length of their messages.
import { startHarness } from "../test/harness/harness.js"
import { messageText, type MockRequest, type Script } from "../test/harness/mock-model.js"
import { prompted, runLoop, stampRequests } from "./loops.js"
import { QUICK, round } from "./util.js"

export interface GrowthPoint {
  iteration: number
  bytes: number
  /** Text length of all messages (system prompt included). */
  textChars: number
  /** Text length of the non-system messages: the conversation the model is given. */
  conversationChars: number
  messages: number
}

export interface ContextGrowthResult {
  iterations: number
  replyChars: number
  summaryChars: number
  continue: GrowthPoint[]
  recreate: GrowthPoint[]
  /** Compaction requests of recreate (the summarize call sees one session's turn). */
  recreateCompactionBytes: number[]
  /** bytes at the last iteration / bytes at iteration 2. */
  continueGrowth: number
  recreateGrowth: number
}

// A reply and a summary of a realistic length, so that growth shows.
const REPLY =
  "I went through the handlers in src/api. users.ts and orders.ts now check their input with the shared schema and return 400 on bad input; " +
  "products.ts, carts.ts and payments.ts still take whatever arrives. Tests exist for users.ts only. Next I will do products.ts and carts.ts, " +
  "then write tests for every handler that has validation. Nothing is committed yet and the task is not finished."
const SUMMARY =
  "## Goal\nAdd input validation to every handler in src/api, with tests.\n\n## Done\n- users.ts, orders.ts validate with the shared schema (400 on bad input)\n- tests for users.ts\n\n" +
  "## Next\n- products.ts, carts.ts, payments.ts\n- tests for every validated handler\n\n## Notes\n- nothing committed yet"

function point(iteration: number, request: MockRequest): GrowthPoint {
  const messages = request.body.messages ?? []
  const textChars = messages.reduce((sum, m) => sum + messageText(m).length, 0)
  const conversationChars = messages
    .filter((m) => m.role !== "system")
    .reduce((sum, m) => sum + messageText(m).length, 0)
  return { iteration, bytes: request.bytes, textChars, conversationChars, messages: messages.length }
}

export async function runContextGrowthBench(log: (line: string) => void): Promise<ContextGrowthResult> {
  const iterations = QUICK ? 8 : 20
  const script: Script = { main: [{ text: REPLY }], compaction: [{ text: SUMMARY }] }
  const harness = await startHarness()
  const { stamps, stop } = stampRequests(harness.mock)
  const series: Record<"continue" | "recreate", GrowthPoint[]> = { continue: [], recreate: [] }
  try {
    for (const strategy of ["continue", "recreate"] as const) {
      log(`context growth: ${strategy}, ${iterations} turns`)
      await runLoop(harness, `growth-${strategy}`, strategy, iterations, script)
      series[strategy] = prompted(stamps, `growth-${strategy}`).map((s, i) => point(i + 1, s.request))
    }
  } finally {
    stop()
    await harness.stop()
  }
  const growth = (points: GrowthPoint[]) =>
    round((points.at(-1)?.bytes ?? Number.NaN) / (points[1]?.bytes ?? Number.NaN), 2)
  return {
    iterations,
    replyChars: REPLY.length,
    summaryChars: SUMMARY.length,
    continue: series.continue,
    recreate: series.recreate,
    recreateCompactionBytes: stamps
      .filter((s) => s.request.scope === "growth-recreate" && s.request.kind === "compaction")
      .map((s) => s.request.bytes),
    continueGrowth: growth(series.continue),
    recreateGrowth: growth(series.recreate),
  }
}
