// Benchmark 2 — idle → next prompt, in the real OpenCode with the scripted model.
//
// For each automatic turn: the time from the mock having written the whole response of turn k to
// the prompt of turn k + 1 arriving at the mock. ralph-loop (`continue`, `recreate`) against
// bench/minimal-plugin.js (promptAsync on session.idle, nothing else), on the same server and mock,
// the variants alternating run by run in a rotating order. For `recreate` the way to the next
// prompt includes the summarize (compaction) call; the time to the compaction request and from
// its answer to the next prompt are reported too. Each way is also split at the moment the
// session.idle event reached this process over SSE (OpenCode's part before it, the plugin's and
// OpenCode's prompt path after it); that split is approximate (ms clock, SSE latency).
import { startHarness } from "../test/harness/harness.js"
import type { Script } from "../test/harness/mock-model.js"
import { prompted, runLoop, stampRequests, type Timed, type Variant } from "./loops.js"
import { median, QUICK, ralphDefaults, round } from "./util.js"

export interface IdleToPromptResult {
  runsPerVariant: number
  turnsPerRun: number
  /** Deliberate wait between an idle and the next prompt in ralph-loop (ms). */
  settleDelayMs: number
  variants: Record<
    Variant,
    {
      samples: number
      medianMs: number
      p25Ms: number
      p75Ms: number
      gapsMs: number[]
      endToIdleMs: number
      idleToPromptMs: number
    }
  >
  recreate: { toCompactionMs: number; compactionMs: number; compactionToPromptMs: number }
  /** Median of ralph-loop continue / median of the minimal plugin. */
  continueRatio: number
  /** (median of continue - settleDelayMs) / median of the minimal plugin: the goal's measure. */
  continueRatioExcludingSettle: number
  /** (median of recreate's idle → summarize request - settleDelayMs) / median of the minimal plugin. */
  recreateToCompactionRatioExcludingSettle: number
  recreateRatio: number
}

const SCRIPT: Script = {
  main: [{ text: "I checked the handlers and started on the validation; more is left to do." }],
  compaction: [{ text: "## Done\n- validation in two handlers\n\n## Next\n- the other handlers, then tests" }],
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

export async function runIdleToPromptBench(log: (line: string) => void): Promise<IdleToPromptResult> {
  const runs = QUICK ? 1 : 4
  const turns = QUICK ? 4 : 8
  const variants: Variant[] = ["minimal", "continue", "recreate"]
  const gaps: Record<Variant, number[]> = { minimal: [], continue: [], recreate: [] }
  const endToIdle: Record<Variant, number[]> = { minimal: [], continue: [], recreate: [] }
  const idleToPrompt: Record<Variant, number[]> = { minimal: [], continue: [], recreate: [] }
  const toCompaction: number[] = []
  const compaction: number[] = []
  const compactionToPrompt: number[] = []

  const harness = await startHarness()
  const { stamps, stop } = stampRequests(harness.mock)
  try {
    for (let r = 0; r < runs; r += 1) {
      for (let k = 0; k < variants.length; k += 1) {
        const variant = variants[(k + r) % variants.length] as Variant
        const name = `idle-${variant}-${r}`
        log(`idle→prompt: ${variant}, run ${r + 1}/${runs}`)
        const project = await runLoop(harness, name, variant, turns, SCRIPT)
        const idles = project.events.of("session.idle").map((e) => e.at)
        const turnsOf = prompted(stamps, name)
        if (turnsOf.length !== turns) throw new Error(`${name}: ${turnsOf.length} prompted turns, expected ${turns}`)
        for (let t = 0; t + 1 < turnsOf.length; t += 1) {
          const ended = turnsOf[t] as Timed
          const next = turnsOf[t + 1] as Timed
          gaps[variant].push(next.received - ended.answered)
          const idle = idles.find((at) => at >= Math.floor(ended.answered))
          if (idle !== undefined && idle <= next.received) {
            endToIdle[variant].push(idle - ended.answered)
            idleToPrompt[variant].push(next.received - idle)
          }
          if (variant !== "recreate") continue
          const summary = stamps.find(
            (s) =>
              s.request.scope === name &&
              s.request.kind === "compaction" &&
              s.received > ended.answered &&
              s.received < next.received,
          )
          if (!summary) throw new Error(`${name}: no compaction request between turn ${t + 1} and ${t + 2}`)
          toCompaction.push(summary.received - ended.answered)
          compaction.push(summary.answered - summary.received)
          compactionToPrompt.push(next.received - summary.answered)
        }
      }
    }
  } finally {
    stop()
    await harness.stop()
  }

  const summary = (variant: Variant) => ({
    samples: gaps[variant].length,
    medianMs: round(median(gaps[variant]), 1),
    p25Ms: round(quantile(gaps[variant], 0.25), 1),
    p75Ms: round(quantile(gaps[variant], 0.75), 1),
    gapsMs: gaps[variant].map((v) => round(v, 1)),
    endToIdleMs: round(median(endToIdle[variant]), 1),
    idleToPromptMs: round(median(idleToPrompt[variant]), 1),
  })
  const minimal = median(gaps.minimal)
  const settle = (await ralphDefaults()).settleMs
  const settleMs = typeof settle === "number" ? settle : 0
  return {
    runsPerVariant: runs,
    turnsPerRun: turns,
    settleDelayMs: settleMs,
    variants: { minimal: summary("minimal"), continue: summary("continue"), recreate: summary("recreate") },
    recreate: {
      toCompactionMs: round(median(toCompaction), 1),
      compactionMs: round(median(compaction), 1),
      compactionToPromptMs: round(median(compactionToPrompt), 1),
    },
    continueRatio: round(median(gaps.continue) / minimal, 2),
    continueRatioExcludingSettle: round((median(gaps.continue) - settleMs) / minimal, 2),
    recreateToCompactionRatioExcludingSettle: round((median(toCompaction) - settleMs) / minimal, 2),
    recreateRatio: round(median(gaps.recreate) / minimal, 2),
  }
}
