// The soak: scenario 1 (the long loops), then scenarios 2 and 3 (wide, with the churn), each in its
// own real OpenCode; the figures the issue asks for, computed from what was sampled and logged.
import { longScenario, type LongOptions, type LongResult, type LoopRun } from "./long.js"
import { median, round, slope } from "./stats.js"
import { wideScenario, type WideOptions, type WideResult } from "./wide.js"
import type { Ledger } from "./ledger.js"
import type { EndCheck, Sample } from "./soak-project.js"

export interface SoakOptions {
  long: LongOptions
  wide: WideOptions
  /** Iterations of the long loops left out of the slopes (start-up: caches, the JIT, the first sessions). */
  warmup: number
}

/** `npm run soak`: the sizes; faults every 30 s. */
export const LONG_SOAK: SoakOptions = {
  long: { recreate: 300, continue: 100, sampleEvery: 10 },
  wide: {
    loops: 50,
    iterations: 10,
    chats: 10,
    chatEvery: 25,
    sampleEvery: 50,
    seed: 16,
    churn: { faults: 8, everyMs: 30_000, burstMs: 7_000 },
  },
  warmup: 50,
}

/** `npm run soak -- --short` and the e2e test: about two minutes on two busy cores. */
export const SHORT_SOAK: SoakOptions = {
  long: { recreate: 30, continue: 10, sampleEvery: 5 },
  wide: {
    loops: 8,
    iterations: 4,
    chats: 3,
    chatEvery: 6,
    sampleEvery: 10,
    seed: 5,
    churn: { faults: 4, everyMs: 4_000, burstMs: 7_000 },
  },
  warmup: 10,
}

export interface LoopFigures {
  strategy: string
  iterations: number
  seconds: number
  /**
   * RSS and open fds: the first sample after the warm-up, the end, the highest, the slope per 100
   * iterations over the samples after the warm-up, and over the lowest sample of each 50 iterations
   * (OpenCode's RSS is a sawtooth: it climbs for a few dozen iterations, then the collector brings
   * it down; the floor is what a leak would raise).
   */
  rssMB: ResourceSeries
  fds: ResourceSeries
  /** Idle → next prompt, ms: the median of each 50 iterations, and of the first and last 20. */
  idleToPrompt: { per50: Array<{ from: number; to: number; ms: number }>; early: number; late: number; ratio: number }
  /** Summaries and transcripts the loop added (per iteration and in all); the state files at the end; journals at most (rotated). */
  disk: {
    summaryBytesPerIteration: number
    summaryMB: number
    stateKB: number
    journalMBMax: number
    journalsMax: number
    /** Journal bytes written per iteration, between the first two samples and between the last two without a rotation between them. */
    journalBytesPerIteration: { early: number; late: number }
  }
  requestKB: { first: number; last: number }
}

export interface ResourceSeries {
  warm: number
  end: number
  max: number
  slopePer100: number
  floorSlopePer100: number
  /** Lowest and highest sample of each 50 iterations. */
  per50: Array<{ from: number; to: number; min: number; max: number }>
}

export interface SoakReport {
  options: SoakOptions
  long: LongResult
  wide: WideResult
  figures: LoopFigures[]
  /** Every consistency count of both scenarios together. */
  totals: {
    prompts: number
    resumes: number
    lost: string[]
    double: string[]
    foreign: string[]
    unfinished: string[]
    orphans: string[]
    missingFiles: string[]
    deleted: number
  }
  seconds: number
}

export async function runSoak(options: SoakOptions, log: (line: string) => void): Promise<SoakReport> {
  const started = Date.now()
  const long = await longScenario(options.long, log)
  const wide = await wideScenario(options.wide, log)
  const ledgers: Ledger[] = [long.ledger, wide.ledger]
  const ends: EndCheck[] = [long.end, wide.end]
  return {
    options,
    long,
    wide,
    figures: long.runs.map((run) => loopFigures(run, options.warmup)),
    totals: {
      prompts: ledgers.reduce((n, l) => n + l.prompts, 0),
      resumes: ledgers.reduce((n, l) => n + l.resumes, 0),
      lost: ledgers.flatMap((l) => l.lost),
      double: ledgers.flatMap((l) => [...l.double, ...l.chats.double]),
      foreign: [...ledgers.flatMap((l) => l.foreign), ...ends.flatMap((e) => e.foreign)],
      unfinished: ledgers.flatMap((l) => l.unfinished),
      orphans: ends.flatMap((e) => e.orphans),
      missingFiles: ends.flatMap((e) => e.missingFiles),
      deleted: ends.reduce((n, e) => n + e.deleted, 0),
    },
    seconds: Math.round((Date.now() - started) / 1000),
  }
}

export function loopFigures(run: LoopRun, warmup: number): LoopFigures {
  const withStats = run.samples.filter(
    (s): s is Sample & { stats: NonNullable<Sample["stats"]> } => s.stats !== undefined,
  )
  const afterWarmup = withStats.filter((s) => s.at >= Math.min(warmup, run.iterations))
  const series = (value: (s: (typeof withStats)[number]) => number, digits: number): ResourceSeries => {
    const per50: ResourceSeries["per50"] = []
    for (let from = 1; from <= run.iterations; from += 50) {
      const to = Math.min(from + 49, run.iterations)
      const inRange = withStats.filter((s) => s.at >= from && s.at <= to).map(value)
      if (inRange.length > 0)
        per50.push({ from, to, min: round(Math.min(...inRange), digits), max: round(Math.max(...inRange), digits) })
    }
    const floors = per50.filter((w) => w.from >= warmup).map((w) => ({ x: (w.from + w.to) / 2, y: w.min }))
    return {
      warm: round(value(afterWarmup[0] ?? withStats[0]!), digits),
      end: round(value(withStats.at(-1)!), digits),
      max: round(Math.max(...withStats.map(value)), digits),
      slopePer100: round(slope(afterWarmup.map((s) => ({ x: s.at, y: value(s) }))) * 100, 2),
      floorSlopePer100: round(slope(floors) * 100, 2),
      per50,
    }
  }
  const gaps = run.gaps
  const per50: LoopFigures["idleToPrompt"]["per50"] = []
  for (let from = 1; from <= run.iterations; from += 50) {
    const to = Math.min(from + 49, run.iterations)
    const inRange = gaps.filter((g) => g.iteration >= from && g.iteration <= to).map((g) => g.ms)
    if (inRange.length > 0) per50.push({ from: Math.max(from, 2), to, ms: round(median(inRange)) })
  }
  const early = median(gaps.slice(0, 20).map((g) => g.ms))
  const late = median(gaps.slice(-20).map((g) => g.ms))
  const first = run.samples[0]!
  const end = run.samples.at(-1)!
  return {
    strategy: run.strategy,
    iterations: run.iterations,
    seconds: run.seconds,
    rssMB: series((s) => s.stats.rssKB / 1024, 1),
    fds: series((s) => s.stats.fds, 0),
    idleToPrompt: { per50, early: round(early), late: round(late), ratio: round(late / early, 2) },
    disk: {
      summaryBytesPerIteration: Math.round((end.summaryBytes - first.summaryBytes) / run.iterations),
      summaryMB: round((end.summaryBytes - first.summaryBytes) / 1024 / 1024, 2),
      stateKB: round(end.stateBytes / 1024, 1),
      journalMBMax: round(Math.max(...run.samples.map((s) => s.journalBytes)) / 1024 / 1024, 2),
      journalsMax: Math.max(...run.samples.map((s) => s.journals)),
      journalBytesPerIteration: journalGrowth(run.samples),
    },
    requestKB: {
      first: round((run.requestBytes[0]?.bytes ?? 0) / 1024),
      last: round((run.requestBytes.at(-1)?.bytes ?? 0) / 1024),
    },
  }
}

/** Bytes the journal grew by per iteration between consecutive samples with no rotation between them (first and last such pair). */
function journalGrowth(samples: readonly Sample[]): { early: number; late: number } {
  const rates: number[] = []
  for (let i = 1; i < samples.length; i += 1) {
    const [a, b] = [samples[i - 1] as Sample, samples[i] as Sample]
    if (b.at > a.at && b.journals === a.journals && b.journalBytes >= a.journalBytes)
      rates.push((b.journalBytes - a.journalBytes) / (b.at - a.at))
  }
  return { early: Math.round(rates[0] ?? Number.NaN), late: Math.round(rates.at(-1) ?? Number.NaN) }
}
