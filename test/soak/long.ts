// Scenario 1, the long loop: one `recreate` loop of N iterations, then one `continue` loop of M, in
// one OpenCode process, no faults. Sampled every few iterations; idle → next prompt measured from
// the model's side for every iteration.
import type { Loop } from "../../src/loop/loop.js"
import { describeLoops } from "../harness/loop-files.js"
import type { MockRequest } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { ledger, type Ledger, type LoopOutcome } from "./ledger.js"
import { loopTask, promptInfo } from "./soak-model.js"
import type { Gauges } from "./probe.js"
import { SoakProject, type EndCheck, type Sample } from "./soak-project.js"

export interface LongOptions {
  recreate: number
  continue: number
  /** A sample every this many iterations (and at iteration 1 and the end). */
  sampleEvery: number
}

export interface LoopRun {
  token: string
  strategy: "recreate" | "continue"
  iterations: number
  seconds: number
  samples: Sample[]
  /** From the end of the model's last reply of an iteration to the next iteration's prompt, per iteration from 2. */
  gaps: Array<{ iteration: number; ms: number }>
  /** Bytes of the model's request at each sampled iteration (the context the loop carries). */
  requestBytes: Array<{ iteration: number; bytes: number }>
}

export interface LongResult {
  runs: LoopRun[]
  ledger: Ledger
  end: EndCheck
  /** The plugin's gauges once every loop had ended (see SoakProject.probe). */
  settled: Gauges | undefined
}

export async function longScenario(options: LongOptions, log: (line: string) => void): Promise<LongResult> {
  const soak = await SoakProject.start("long")
  try {
    const runs: LoopRun[] = []
    const outcomes: LoopOutcome[] = []
    const plan = [
      { strategy: "recreate", iterations: options.recreate, token: "loop-long" },
      { strategy: "continue", iterations: options.continue, token: "loop-cont" },
    ] as const
    for (const { strategy, iterations, token } of plan) {
      if (iterations === 0) continue
      soak.model.plan(token, iterations)
      const samples: Sample[] = []
      const requestBytes: LoopRun["requestBytes"] = []
      const stopSampling = soak.harness.mock.onRequest((request) => {
        if (request.scope !== soak.project.scope || request.kind !== "main" || request.lastRole !== "user") return
        const info = promptInfo(request.lastUser)
        if (info.of !== "loop" || info.token !== token || info.kind === "resume") return
        if (info.iteration !== 1 && info.iteration % options.sampleEvery !== 0) return
        const sample = soak.sample(info.iteration)
        samples.push(sample)
        requestBytes.push({ iteration: info.iteration, bytes: request.bytes })
        log(describeSample(`${strategy} iteration ${info.iteration}`, sample))
      })
      const started = Date.now()
      const session = await soak.project.newSession(token)
      await soak.project.command(session, "ralph", `--strategy ${strategy} ${loopTask(token)}`)
      const loop = await loopEnd(soak, token, iterations * 20_000 + 120_000)
      stopSampling()
      await soak.project.waitForIdle(120_000)
      samples.push(soak.sample(loop.iteration))
      log(describeSample(`${strategy} ended`, samples.at(-1) as Sample))
      runs.push({
        token,
        strategy,
        iterations: loop.iteration,
        seconds: Math.round((Date.now() - started) / 1000),
        samples,
        gaps: gapsOf(soak.requests, token),
        requestBytes,
      })
      outcomes.push({ token, state: loop, target: iterations, cancelled: false })
    }
    const probe = await soak.probe()
    outcomes.push(probe.outcome)
    return { runs, ledger: ledger(soak.records, outcomes, []), end: await soak.endCheck(), settled: probe.gauges }
  } finally {
    await soak.stop()
  }
}

/** The loop of `token` once it stopped with nothing left to retire; a stop for another reason than completion fails at once. */
async function loopEnd(soak: SoakProject, token: string, timeoutMs: number): Promise<Loop> {
  return waitUntil(
    () => {
      const loop = soak.loop(token)
      if (loop?.phase === "stopped" && loop.stopReason !== "completed")
        throw new Error(`${token} stopped early: ${describeLoops([loop])} — ${loop.detail ?? ""}`)
      return loop?.phase === "stopped" && loop.retiring.length === 0 && loop
    },
    `${token} completed`,
    timeoutMs,
    () => describeLoops(soak.project.loops()),
  )
}

/** Idle → next prompt from the model's side: each iteration's prompt minus the end of the loop's previous reply. */
export function gapsOf(requests: readonly MockRequest[], token: string): LoopRun["gaps"] {
  const own = requests
    .filter((r) => r.kind === "main")
    .map((r) => ({ request: r, info: promptInfo(r.lastUser) }))
    .filter(({ info }) => info.of === "loop" && info.token === token)
    .sort((a, b) => a.request.at - b.request.at)
  const gaps: LoopRun["gaps"] = []
  own.forEach(({ request, info }, i) => {
    const previous = own[i - 1]?.request
    if (info.of !== "loop" || info.kind !== "next" || request.lastRole !== "user" || previous?.endedAt === undefined)
      return
    gaps.push({ iteration: info.iteration, ms: request.at - previous.endedAt })
  })
  return gaps
}

export function describeSample(label: string, s: Sample): string {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`
  const proc = s.stats
    ? `rss ${(s.stats.rssKB / 1024).toFixed(0)} MB, fds ${s.stats.fds}, threads ${s.stats.threads}`
    : "no /proc"
  const g = s.gauges
    ? `plugin: loops ${s.gauges.loops}, timers ${s.gauges.timers}, writes ${s.gauges.writes}, states ${s.gauges.states}`
    : "plugin: no gauges yet"
  return `${label} (${s.seconds} s): ${proc}; state ${mb(s.stateBytes)}, journals ${mb(s.journalBytes)} (${s.journals}), summaries ${mb(s.summaryBytes)} (${s.summaryFiles} files); live loops ${s.liveLoops}, waiting ${s.waitingLoops}; ${g}`
}
