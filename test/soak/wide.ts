// Scenario 2 with 3: many loops at once in one OpenCode process (strategies mixed), plain sessions
// chatting beside them, and the churn's faults while they run. The loops promise at their target
// iteration, but not before the churn is over, so every fault lands among live loops.
import { Churn, type ChurnOptions } from "./churn.js"
import { ledger, type FaultRecord, type Ledger, type LoopOutcome } from "./ledger.js"
import { describeSample } from "./long.js"
import { chatText, loopTask, promptInfo } from "./soak-model.js"
import type { Gauges } from "./probe.js"
import { SoakProject, type EndCheck, type Sample } from "./soak-project.js"
import { random } from "./stats.js"
import { waitUntil } from "../harness/wait.js"

export interface WideOptions {
  loops: number
  iterations: number
  chats: number
  /** A chat session sends its next message after this many more loop prompts. */
  chatEvery: number
  /** A sample every this many loop prompts. */
  sampleEvery: number
  churn: Omit<ChurnOptions, "random">
  seed: number
}

export interface WideResult {
  loops: number
  seconds: number
  /** Loop prompts that started an iteration, over all loops. */
  iterations: number
  samples: Sample[]
  faults: FaultRecord[]
  cancelled: string[]
  chatMessagesSent: number
  ledger: Ledger
  end: EndCheck
  /** The plugin's gauges once every loop had ended (see SoakProject.probe). */
  settled: Gauges | undefined
}

const STRATEGIES = ["recreate", "fresh", "continue"] as const
const HOUR = 3_600_000

export async function wideScenario(options: WideOptions, log: (line: string) => void): Promise<WideResult> {
  const soak = await SoakProject.start("wide")
  try {
    const started = Date.now()
    let churnOver = false
    let loopsOver = false
    soak.model.mayFinish = () => churnOver
    const name = (prefix: string, i: number) => `${prefix}${String(i).padStart(2, "0")}`
    const tokens = Array.from({ length: options.loops }, (_, i) => name("loop-w", i))
    const chatTokens = Array.from({ length: options.chats }, (_, i) => name("chat-c", i))
    for (const token of tokens) soak.model.plan(token, options.iterations)
    const loopSessions = await Promise.all(tokens.map((token) => soak.project.newSession(token)))
    const chatSessions = await Promise.all(chatTokens.map((token) => soak.project.newSession(token)))

    let prompts = 0
    const samples: Sample[] = []
    const stopSampling = soak.harness.mock.onRequest((request) => {
      if (request.scope !== soak.project.scope || request.kind !== "main" || request.lastRole !== "user") return
      const info = promptInfo(request.lastUser)
      if (info.of !== "loop" || info.kind === "resume") return
      prompts += 1
      if (prompts % options.sampleEvery !== 0) return
      samples.push(soak.sample(prompts))
      log(describeSample(`wide, ${prompts} prompts`, samples.at(-1) as Sample))
    })

    await Promise.all(
      tokens.map((token, i) =>
        soak.project.command(
          loopSessions[i] as string,
          "ralph",
          `--strategy ${STRATEGIES[i % STRATEGIES.length]} ${loopTask(token)}`,
        ),
      ),
    )
    log(`wide: ${options.loops} loops started in ${Math.round((Date.now() - started) / 1000)} s`)
    const churn = new Churn(soak, { ...options.churn, random: random(options.seed) }, log)
    const chatters = chatTokens.map((token, i) =>
      chatter(soak, token, chatSessions[i] as string, {
        every: options.chatEvery,
        prompts: () => prompts,
        over: () => loopsOver,
        faults: churn.faults,
      }),
    )
    await churn.run()
    churnOver = true
    await soak.loopsEnded(options.loops, HOUR)
    loopsOver = true
    const chatMessagesSent = (await Promise.all(chatters)).reduce((a, b) => a + b, 0)
    await soak.project.waitForIdle(120_000)
    stopSampling()
    samples.push(soak.sample(prompts))
    log(describeSample("wide ended", samples.at(-1) as Sample))

    const probe = await soak.probe()
    const outcomes: LoopOutcome[] = tokens.map((token) => ({
      token,
      state: soak.loop(token)!,
      target: options.iterations,
      cancelled: churn.cancelled.has(token),
    }))
    outcomes.push(probe.outcome)
    return {
      loops: options.loops,
      seconds: Math.round((Date.now() - started) / 1000),
      iterations: prompts,
      samples,
      faults: churn.faults,
      cancelled: [...churn.cancelled],
      chatMessagesSent,
      ledger: ledger(soak.records, outcomes, churn.faults),
      end: await soak.endCheck(new Map(chatSessions.map((id, i) => [id, chatTokens[i] as string]))),
      settled: probe.gauges,
    }
  } finally {
    await soak.stop()
  }
}

/**
 * A plain session chatting beside the loops: its k-th message once the loops have made k × every
 * prompts, each after the previous one's turn ended (or OpenCode was killed under it). Returns the
 * messages sent.
 */
async function chatter(
  soak: SoakProject,
  token: string,
  sessionID: string,
  pace: { every: number; prompts: () => number; over: () => boolean; faults: readonly FaultRecord[] },
): Promise<number> {
  let sent = 0
  for (let k = 1; ; k += 1) {
    await waitUntil(() => pace.over() || pace.prompts() >= k * pace.every, `${token}'s turn to chat`, 6 * HOUR)
    if (pace.over()) return sent
    const since = Date.now()
    await waitUntil(
      async () => {
        const answer = await soak.project.client.session
          .promptAsync({ path: { id: sessionID }, body: { parts: [{ type: "text", text: chatText(token, k) }] } })
          .catch(() => undefined)
        return answer !== undefined && answer.error === undefined
      },
      `${token} message ${k} sent`,
      120_000,
    )
    sent += 1
    const killedSince = () => pace.faults.some((f) => f.kind === "kill" && f.endedAt >= since)
    await waitUntil(
      () =>
        killedSince() ||
        soak.records.some((r) => r.info.of === "chat" && r.info.token === token && r.info.message === k),
      `${token} message ${k} at the model`,
      180_000,
    )
    await waitUntil(
      async () => {
        const { data } = await soak.project.client.session.status().catch(() => ({ data: undefined }))
        return data !== undefined && (data[sessionID] === undefined || data[sessionID]?.type === "idle")
      },
      `${token} idle after message ${k}`,
      180_000,
    )
  }
}
