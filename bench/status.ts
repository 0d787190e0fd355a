// Benchmark — `ralph-loop status` on a big project (issue 26): 1,000 ended loops and a journal of
// 5 MB at least (the newest loop's history is MIN_ROWS long whatever the ended ones wrote), written
// through the real LoopStore (dist/) as loops write them. Timed two ways: the whole command as a
// user runs it (`node dist/cli/main.js status --project DIR`, a process each time: node's start
// included), and the read + build + render alone in this process. Run in a child node process;
// its temp dir goes away with it.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { packageDir } from "../test/harness/harness.js"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface StatusResult {
  runs: number
  loops: number
  journalBytes: number
  /** Decided iterations in the newest loop's history (the one shown in detail). */
  historyRows: number
  /** The whole command, node's start included: text, and --json. */
  commandMs: number
  commandJsonMs: number
  /** Reading the files, building the document and the text, in this process. */
  inProcessMs: number
  outputBytes: number
}

const LOOPS = 1_000
const JOURNAL_BYTES = 5 * 1024 * 1024
/**
 * The newest loop's history, at least: each journal line carries the loop's settings, so the ended
 * loops alone now fill 5 MB (5.7 MB at 8036f43), and "fill the journal to 5 MB" left the newest
 * loop without a single iteration — started in the very millisecond the last ended loop stopped,
 * so neither was the newer one and the benchmark failed on which of the two the status showed.
 */
const MIN_ROWS = 200

async function measure(): Promise<StatusResult> {
  const { LoopStore } = await loadDist<typeof import("../src/store/loop-store.js")>("store/loop-store.js")
  const { newLoop } = await loadDist<typeof import("../src/loop/loop.js")>("loop/loop.js")
  const { DEFAULT_SETTINGS } = await loadDist<typeof import("../src/config/schema.js")>("config/schema.js")
  const { projectStatus } = await loadDist<typeof import("../src/cli/status.js")>("cli/status.js")
  const { statusLines } = await loadDist<typeof import("../src/status/lines.js")>("status/lines.js")
  const { activation: _activation, ...settings } = DEFAULT_SETTINGS
  const runs = QUICK ? 5 : 15

  const dir = mkdtempSync(join(tmpdir(), "ralph-bench-status-"))
  // One journal, never rotated, to reach 5 MB in one file (the default rotates at 1 MB: then it is
  // 1 MB + 4 old ones, the same 5 MB read).
  const store = new LoopStore(dir, undefined, { maxBytes: Number.POSITIVE_INFINITY, kept: 0 })
  const journal = join(store.dir, "journal.jsonl")
  let now = Date.parse("2026-01-01T00:00:00Z")
  // 1,000 ended loops, two iterations each.
  for (let i = 0; i < LOOPS; i += 1) {
    const loop = {
      ...newLoop(`ses_ended_${String(i).padStart(4, "0")}`, `task number ${i}: make the widget better`, settings, now),
      phase: "running" as const,
    }
    await store.save(loop, "started", now)
    for (let it = 1; it <= 2; it += 1) {
      loop.iteration = it
      loop.usage = { [loop.sessionID]: { tokens: 1000 * it, cost: 0.01 * it } }
      loop.lastDecision = it === 2 ? "complete" : "restart"
      now += 60_000
      await store.save(loop, "decided", now)
    }
    now += 1_000
    await store.save({ ...loop, phase: "stopped", stopReason: "completed" }, "stopped:completed", now)
  }
  // The newest loop, started after the last one ended: a long one, still running, whose iterations
  // fill the journal to 5 MB — and number MIN_ROWS at least.
  now += 60_000
  const long = {
    ...newLoop("ses_long", "the long task: implement every story of the plan", settings, now),
    phase: "running" as const,
  }
  await store.save(long, "started", now)
  let rows = 0
  while (rows < MIN_ROWS || statSync(journal).size < JOURNAL_BYTES) {
    rows += 1
    long.usage = { [long.sessionID]: { tokens: 5000 * rows, cost: 0.05 * rows } }
    long.lastDecision = "restart"
    now += 60_000
    await store.save(long, "decided", now)
    long.iteration = rows + 1
    now += 1_000
    await store.save(long, "iteration", now)
  }
  await store.flush()

  const cli = join(packageDir(), "dist", "cli", "main.js")
  const command = (...extra: string[]) => {
    const times: number[] = []
    let bytes = 0
    for (let i = 0; i < runs + 2; i += 1) {
      const started = process.hrtime.bigint()
      const out = execFileSync(process.execPath, [cli, "status", "--project", dir, ...extra], {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      })
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      bytes = out.length
      if (!out.includes("ses_long")) throw new Error("the status does not show the newest loop")
      if (i >= 2) times.push(ms) // the first two warm the page cache up
    }
    return { ms: median(times), bytes }
  }
  const text = command()
  const json = command("--json")
  const inProcess: number[] = []
  for (let i = 0; i < runs + 2; i += 1) {
    const started = process.hrtime.bigint()
    const doc = await projectStatus(dir, undefined, Date.now())
    const lines = statusLines(doc)
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    if (
      doc.loops.length !== LOOPS + 1 ||
      doc.selected?.id !== long.id ||
      doc.selected.history.length !== rows ||
      lines.length < LOOPS
    )
      throw new Error(
        `status found ${doc.loops.length} loops, showed ${doc.selected?.id} with ${doc.selected?.history.length} rows (expected ${long.id} with ${rows})`,
      )
    if (i >= 2) inProcess.push(ms)
  }
  return {
    runs,
    loops: readdirSync(join(store.dir, "loops")).length,
    journalBytes: statSync(journal).size,
    historyRows: rows,
    commandMs: round(text.ms, 1),
    commandJsonMs: round(json.ms, 1),
    inProcessMs: round(median(inProcess), 1),
    outputBytes: text.bytes,
  }
}

export function runStatusBench(): Promise<StatusResult> {
  return runChild<StatusResult>(fileURLToPath(import.meta.url), [], {}, 10 * 60_000)
}

runAsChild(import.meta.url, "status", measure)
