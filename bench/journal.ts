// Benchmark 7 — recovery with a long history (issue 15): the time LoopStore.load() takes at
// start-up when the project has 500 (and 2,000) iterations of history behind it, with the journal
// rotated (as it is now) and as one journal that was never rotated (as it was). Recovery reads only
// the newest journal, so with rotation its time is bounded by one full journal however long the
// history and however many old journals lie beside it. The history is written through the real
// LoopStore (dist/), four journal lines per iteration as a recreate loop writes them, with a paused
// loop and an ended one beside it. Run in a child node process; its temp dir goes away with it.
import { mkdtempSync, readdirSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface JournalCase {
  iterations: number
  rotated: boolean
  /** The journal recovery reads. */
  newestBytes: number
  oldJournals: number
  /** Every journal file of the project. */
  totalBytes: number
  loadMs: number
}

export interface JournalResult {
  runs: number
  maxBytes: number
  bytesPerIteration: number
  /** A journal filled to just under the rotation size: the most recovery ever reads. */
  fullJournal: JournalCase
  cases: JournalCase[]
}

async function measure(): Promise<JournalResult> {
  const { LoopStore, JOURNAL_LIMITS } =
    await loadDist<typeof import("../src/store/loop-store.js")>("store/loop-store.js")
  const { newLoop } = await loadDist<typeof import("../src/loop/loop.js")>("loop/loop.js")
  const { DEFAULT_SETTINGS } = await loadDist<typeof import("../src/config/schema.js")>("config/schema.js")
  const { activation: _activation, ...settings } = DEFAULT_SETTINGS
  const runs = QUICK ? 7 : 21
  const unrotated = { maxBytes: Number.POSITIVE_INFINITY, kept: 0 }

  /** A project with `iterations` iterations of history (`untilFull`: stops just before the journal would rotate). */
  const write = async (
    iterations: number,
    limits: typeof JOURNAL_LIMITS,
    untilFull = false,
  ): Promise<{ dir: string; written: number }> => {
    const dir = mkdtempSync(join(tmpdir(), "ralph-bench-journal-"))
    const store = new LoopStore(dir, undefined, limits)
    const paused = { ...newLoop("ses_paused", "an earlier task, paused", settings, 0), phase: "paused" as const }
    const ended = { ...newLoop("ses_ended", "a finished task", settings, 0), phase: "stopped" as const }
    const loop = {
      ...newLoop("ses_long", "the long task: implement every story of the plan", settings, 0),
      phase: "running" as const,
    }
    await store.save(paused, "paused", 1)
    await store.save(ended, "stopped", 2)
    let now = 10
    let written = 0
    for (let i = 1; i <= iterations; i += 1) {
      if (untilFull && statSync(join(store.dir, "journal.jsonl")).size > JOURNAL_LIMITS.maxBytes - 8_000) break
      loop.iteration = i
      loop.lineage = [...loop.lineage.slice(-3), `ses_long_${i}`]
      now += 60_000
      await store.save(loop, "decided", now)
      now += 1_000
      await store.save(loop, "restarting", now)
      now += 1_000
      await store.save(loop, "restarted", now)
      now += 1_000
      await store.save(loop, "iteration", now)
      written = i
    }
    await store.flush()
    return { dir, written }
  }

  const time = async (
    { dir, written: iterations }: { dir: string; written: number },
    rotated: boolean,
  ): Promise<JournalCase> => {
    const stateDir = join(dir, ".opencode", "ralph-loop")
    const journals = readdirSync(stateDir).filter((n) => /^journal.*\.jsonl$/.test(n))
    const times: number[] = []
    for (let i = 0; i < runs + 2; i += 1) {
      const store = new LoopStore(dir)
      const started = process.hrtime.bigint()
      const { loops, problems } = await store.load(Date.now())
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (loops.length !== 3 || problems.length > 0)
        throw new Error(`recovery found ${loops.length} loops, problems: ${JSON.stringify(problems)}`)
      if (i >= 2) times.push(ms) // the first two warm the JIT and the page cache up
    }
    return {
      iterations,
      rotated,
      newestBytes: statSync(join(stateDir, "journal.jsonl")).size,
      oldJournals: journals.length - 1,
      totalBytes: journals.reduce((sum, n) => sum + statSync(join(stateDir, n)).size, 0),
      loadMs: round(median(times), 2),
    }
  }

  const histories = QUICK ? [500, 1_000] : [500, 2_000]
  const cases: JournalCase[] = []
  for (const iterations of histories) {
    cases.push(await time(await write(iterations, JOURNAL_LIMITS), true))
    cases.push(await time(await write(iterations, unrotated), false))
  }
  const longestUnrotated = cases.filter((c) => !c.rotated).at(-1)!
  return {
    runs,
    maxBytes: JOURNAL_LIMITS.maxBytes,
    bytesPerIteration: Math.round(longestUnrotated.totalBytes / longestUnrotated.iterations),
    fullJournal: await time(await write(100_000, unrotated, true), false),
    cases,
  }
}

export function runJournalBench(): Promise<JournalResult> {
  return runChild<JournalResult>(fileURLToPath(import.meta.url), [], {}, 10 * 60_000)
}

runAsChild(import.meta.url, "journal", measure)
