// Benchmark 5 — memory: heap per tracked session and per loop, and nothing left behind.
//
// In a child node process started with --expose-gc, with the built plugin (dist/) and a fake
// client: 10,000 sessions are announced through `session.created` (to an instance with
// activation "always", the one that tracks new sessions, and to one with the default activation),
// a loop is started in one in twenty of them through the real /ralph hooks (command.execute.before +
// chat.message), and then every session is deleted through `session.deleted`. That cycle runs
// several times; the heap after each deletion is compared with the heap before the first cycle.
// What the first cycles leave (optimised code, hash tables that keep their capacity) is paid once;
// a leak grows with every further cycle, so the growth is the slope of the residual after the
// warm-up cycles. Before each heap reading the plugin's background file writes are waited for.
import { getHeapSnapshot } from "node:v8"
import { fileURLToPath } from "node:url"
import type { Hooks } from "@opencode-ai/plugin"
import {
  fakeClient,
  loadRalph,
  QUICK,
  ralphInstance,
  round,
  runAsChild,
  runChild,
  settleIO,
  settleStartup,
  startLoopViaHooks,
} from "./util.js"

export interface MemoryResult {
  sessions: number
  /** Sessions of a cycle that run a loop. */
  loops: number
  cycles: number
  bytesPerSession: number
  bytesPerLoop: number
  /** Heap after each cycle's deletions, minus the heap before the first cycle (bytes). */
  residualAfterCycle: number[]
  /** Cycles whose residual is not used for the growth: one-time costs land in them. */
  warmupCycles: number
  /** Least-squares slope of the residual over the cycles after the warm-up ones, per session of a cycle. */
  growthBytesPerSession: number
  /** The same slope per loop of a cycle (what stays behind for each loop that ended). */
  growthBytesPerLoop: number
  baselineHeapBytes: number
  /** Sessions created (and deleted) over all cycles. */
  sessionsCreated: number
  /** Strings on the heap after the last cycle holding the id of a session of an earlier cycle (a heap snapshot). */
  earlierCycleIdsLeft: number
  /** The same for the last cycle's sessions (V8 keeps the last few strings it worked on). */
  lastCycleIdsLeft: number
  idsLeftSample: string[]
}

const SESSIONS = 10_000
/**
 * A loop in one session in twenty. Starting and ending a loop is real work for the plugin (it runs
 * git for a baseline, writes state files and a report): milliseconds each, so 10,000 loops per
 * cycle would take minutes.
 */
const LOOP_EVERY = 20
const LOOPS = SESSIONS / LOOP_EVERY

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error("run with --expose-gc")
  for (let i = 0; i < 4; i += 1) gc()
  return process.memoryUsage().heapUsed
}

type EventInput = Parameters<NonNullable<Hooks["event"]>>[0]
const event = (type: string, id: string) =>
  ({
    event: {
      id: `evt_${type}_${id}`,
      type,
      properties: { sessionID: id, info: { id, title: "bench", time: { created: 0, updated: 0 } } },
    },
  }) as unknown as EventInput

async function cycle(
  always: Hooks,
  command: Hooks,
  c: number,
): Promise<{ afterSessions: number; afterLoops: number; afterDelete: number }> {
  const ids = Array.from({ length: SESSIONS }, (_, i) => `ses_mem${c}_${String(i).padStart(6, "0")}`)
  for (const id of ids) await always.event?.(event("session.created", id))
  await settleIO()
  const afterSessions = heapUsed()
  for (const [i, id] of ids.entries()) {
    await command.event?.(event("session.created", id))
    if (i % LOOP_EVERY === 0) await startLoopViaHooks(command, id, `task for ${id}`)
  }
  await settleIO()
  const afterLoops = heapUsed()
  for (const id of ids) {
    await always.event?.(event("session.deleted", id))
    await command.event?.(event("session.deleted", id))
  }
  await settleIO()
  return { afterSessions, afterLoops, afterDelete: heapUsed() }
}

/** Least-squares slope of `ys` over 0, 1, 2, … */
function slope(ys: number[]): number {
  const n = ys.length
  const meanX = (n - 1) / 2
  const meanY = ys.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  ys.forEach((y, x) => {
    num += (x - meanX) * (y - meanY)
    den += (x - meanX) ** 2
  })
  return den === 0 ? 0 : num / den
}

async function measure(): Promise<MemoryResult> {
  const plugin = await loadRalph()
  const always = await ralphInstance(plugin, { activation: "always" }, fakeClient().client)
  const command = await ralphInstance(plugin, {}, fakeClient().client)
  // Warm up once (code, shapes, JIT) on a few sessions, so the baseline holds what is loaded anyway.
  for (const id of ["ses_warm_1", "ses_warm_2"]) {
    await always.event?.(event("session.created", id))
    await startLoopViaHooks(command, id, "warm")
    await always.event?.(event("session.deleted", id))
    await command.event?.(event("session.deleted", id))
  }
  await settleStartup()
  const baseline = heapUsed()
  const cycles = QUICK ? 3 : 5
  const warmupCycles = QUICK ? 1 : 2
  const results = []
  let before = baseline
  for (let c = 0; c < cycles; c += 1) {
    const r = await cycle(always, command, c)
    results.push({ ...r, before })
    before = r.afterDelete
  }
  const left = await sessionIdsOnHeap()
  const earlier = left.filter((id) => id.cycle < cycles - 1)
  const first = results[0] as (typeof results)[number]
  const residuals = results.map((r) => r.afterDelete - baseline)
  return {
    sessions: SESSIONS,
    loops: LOOPS,
    cycles,
    bytesPerSession: round((first.afterSessions - first.before) / SESSIONS, 1),
    bytesPerLoop: round((first.afterLoops - first.afterSessions) / LOOPS, 1),
    residualAfterCycle: residuals,
    warmupCycles,
    growthBytesPerSession: round(slope(residuals.slice(warmupCycles)) / SESSIONS, 3),
    growthBytesPerLoop: round(slope(residuals.slice(warmupCycles)) / LOOPS, 1),
    baselineHeapBytes: baseline,
    sessionsCreated: SESSIONS * cycles,
    earlierCycleIdsLeft: earlier.length,
    lastCycleIdsLeft: left.length - earlier.length,
    idsLeftSample: left.slice(0, 5).map((id) => id.text),
  }
}

/**
 * The strings on the heap (from a heap snapshot) that hold the id of a session of the cycles, with
 * the cycle it belongs to. Anything the plugin kept of a deleted session keeps its id, so this
 * shows a leak exactly, where the heap size shows it only through the GC's noise.
 */
async function sessionIdsOnHeap(): Promise<{ cycle: number; text: string }[]> {
  heapUsed()
  const chunks: string[] = []
  for await (const chunk of getHeapSnapshot()) chunks.push(String(chunk))
  const snapshot = JSON.parse(chunks.join("")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } }
    nodes: number[]
    strings: string[]
  }
  const fields = snapshot.snapshot.meta.node_fields
  const width = fields.length
  const typeAt = fields.indexOf("type")
  const nameAt = fields.indexOf("name")
  const types = snapshot.snapshot.meta.node_types[0]
  const stringTypes = new Set(["string", "concatenated string", "sliced string"].map((t) => types.indexOf(t)))
  const found: { cycle: number; text: string }[] = []
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    if (!stringTypes.has(snapshot.nodes[i + typeAt] as number)) continue
    const value = snapshot.strings[snapshot.nodes[i + nameAt] as number] ?? ""
    const id = /ses_mem(\d+)_\d{6}/.exec(value)
    if (id) found.push({ cycle: Number(id[1]), text: value.slice(0, 120) })
  }
  return found
}

/** Runs this benchmark in a child node process with --expose-gc. */
export function runMemoryBench(): Promise<MemoryResult> {
  return runChild<MemoryResult>(fileURLToPath(import.meta.url), ["--expose-gc"], {}, 5 * 60_000)
}

runAsChild(import.meta.url, "memory", measure)
