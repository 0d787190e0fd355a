// Benchmark 1 — the CPU cost of the `event` hook per event.
//
// OpenCode calls every plugin's `event` hook for every event of the instance, without awaiting it:
//   V.event?.({ event: { id: N.id, type: N.type, properties: N.data } })
// This feeds a runtime-shaped stream (mostly message.part.delta and message.part.updated, a few
// session.status / session.idle / message.updated) the same way into a no-op handler and into the
// real hook of the built plugin (dist/), with 0, 100 and 10,000 sessions known to the plugin — one
// session in twenty running a loop started through the real /ralph hooks; half of the sessions that
// stream run a loop. Each round times every handler once, in a rotating order; the ratio is the
// median over rounds of (hook / no-op) of the same round, so slow phases of a noisy machine hit
// both sides alike. Runs in a child process (HOME and XDG in a temp folder), prints JSON.
import { fileURLToPath } from "node:url"
import type { Hooks, PluginModule } from "@opencode-ai/plugin"
import {
  drain,
  fakeClient,
  loadRalph,
  median,
  QUICK,
  ralphInstance,
  round,
  runAsChild,
  runChild,
  settleIO,
  settleStartup,
  startLoopViaHooks,
} from "./util.js"

export interface EventHookResult {
  eventsPerBatch: number
  rounds: number
  mix: Record<string, number>
  handlers: Array<{
    name: string
    sessions: number
    loops: number
    nsPerEvent: number
    /** Median over rounds of this handler's time / the no-op's time in the same round. */
    ratioToNoop: number
    /** Median over rounds of this handler's time / the 100-session hook's time in the same round. */
    ratioTo100Sessions: number
    clientCalls: Record<string, number>
  }>
}

interface StreamEvent {
  id: string
  type: string
  data: Record<string, unknown>
}

type EventHandler = (input: { event: unknown }) => Promise<void>

const SESSION_COUNTS = [0, 100, 10_000]
const sessionID = (i: number) => `ses_bench${String(i).padStart(6, "0")}`
const hasLoop = (i: number) => i % 20 === 0
/** The sessions streaming turns: half run a loop (when the plugin knows that many sessions). */
const STREAMING = [0, 1, 20, 21, 40, 41, 60, 61].map(sessionID)
const DELTAS_PER_TURN = 80
/**
 * The hook claims an idle synchronously and hands it to the runner, which waits settleMs before it
 * reads the turn (then runs git, reads todos and messages, prompts — per turn, not per event, and
 * measured end to end in idle-to-prompt). The longest allowed settle keeps that work out of this
 * measurement: each loop claims one idle here, and ignores the later ones while it "decides".
 */
const SETTLE_MS = 60_000

let eventNo = 0
const ev = (type: string, data: Record<string, unknown>): StreamEvent => ({
  id: `evt_${(eventNo++).toString(16)}`,
  type,
  data,
})

/** One model turn as OpenCode 1.18 publishes it (v2-shaped payloads). */
function turn(session: string, n: number): StreamEvent[] {
  const messageID = `msg_${session}_${n}`
  const partID = `prt_${session}_${n}`
  const info = {
    id: messageID,
    sessionID: session,
    role: "assistant",
    providerID: "mock",
    modelID: "mock-model",
    mode: "build",
    agent: "build",
    time: { created: n },
  }
  const part = (type: string, extra: Record<string, unknown> = {}) =>
    ev("message.part.updated", {
      sessionID: session,
      part: { id: `${partID}_${type}`, sessionID: session, messageID, type, ...extra },
      time: n,
    })
  const events = [
    ev("session.status", { sessionID: session, status: { type: "busy" } }),
    ev("message.updated", { sessionID: session, info }),
    part("step-start"),
    part("text", { text: "", time: { start: n } }),
  ]
  for (let d = 0; d < DELTAS_PER_TURN; d += 1) {
    events.push(
      ev("message.part.delta", {
        sessionID: session,
        messageID,
        partID: `${partID}_text`,
        field: "text",
        delta: "word ",
      }),
    )
    if (d % 20 === 19) events.push(part("text", { text: "word ".repeat(d + 1) }))
  }
  events.push(
    part("text", { text: "word ".repeat(DELTAS_PER_TURN), time: { start: n, end: n + 1 } }),
    part("step-finish", { reason: "stop", tokens: { input: 100, output: 20 } }),
    ev("message.updated", {
      sessionID: session,
      info: { ...info, time: { created: n, completed: n + 1 }, finish: "stop" },
    }),
    ev("session.status", { sessionID: session, status: { type: "idle" } }),
    ev("session.idle", { sessionID: session }),
  )
  return events
}

/** The turns of the stream, round robin over the streaming sessions. */
function stream(turns: number): StreamEvent[][] {
  return Array.from({ length: turns }, (_, t) => turn(STREAMING[t % STREAMING.length] as string, t))
}

/**
 * Calls the handler for every event exactly as OpenCode does (not awaited), and after each turn
 * lets everything the handler queued run (a real turn's events are spread over time, and the
 * plugin reacts to an idle before the next prompt's events). Returns ns per event, all included.
 */
async function nsPerEvent(handler: EventHandler, turns: readonly StreamEvent[][], count: number): Promise<number> {
  const start = process.hrtime.bigint()
  for (const events of turns) {
    for (const e of events) void handler({ event: { id: e.id, type: e.type, properties: e.data } })
    await drain()
  }
  return Number(process.hrtime.bigint() - start) / count
}

interface Handler {
  name: string
  sessions: number
  loops: number
  handle: EventHandler
  calls: Record<string, number>
}

/** A plugin instance knowing `sessions` sessions, a loop started by /ralph in one in twenty. */
async function ralphHandler(
  plugin: PluginModule,
  sessions: number,
  name: string,
  options: Record<string, unknown> = {},
): Promise<Handler> {
  const { client, stats } = fakeClient()
  const hooks: Hooks = await ralphInstance(plugin, { strategy: "continue", settleMs: SETTLE_MS, ...options }, client)
  const hook = hooks.event as EventHandler
  let loops = 0
  for (let i = 0; i < sessions; i += 1) {
    await hook({
      event: { type: "session.created", properties: { sessionID: sessionID(i), info: { id: sessionID(i) } } },
    })
    if (hasLoop(i)) {
      await startLoopViaHooks(hooks, sessionID(i), "task")
      loops += 1
    }
  }
  await settleIO() // the plugin writes each new loop's state file in the background
  for (const key of Object.keys(stats.calls)) delete stats.calls[key] // count only what the stream causes
  return { name, sessions, loops, handle: hook, calls: stats.calls }
}

async function measure(): Promise<EventHookResult> {
  const plugin = await loadRalph()
  const turns = stream(QUICK ? 60 : 108)
  const count = turns.reduce((sum, events) => sum + events.length, 0)
  const handlers: Handler[] = [
    { name: "no-op handler", sessions: 0, loops: 0, handle: async () => {}, calls: {} },
    // Reference only: the floor of this driver (a plain function: no promise at all).
    {
      name: "sync no-op (driver floor)",
      sessions: 0,
      loops: 0,
      handle: (() => undefined) as unknown as EventHandler,
      calls: {},
    },
  ]
  for (const sessions of SESSION_COUNTS)
    handlers.push(await ralphHandler(plugin, sessions, `ralph-loop, ${sessions.toLocaleString("en")} sessions`))
  // Reference only: the share of the continuations' job, which every turn end of a session without
  // a loop starts (todo-continuation is on by default; it waits settleMs before it reads anything).
  handlers.push(
    await ralphHandler(plugin, 100, "reference: 100 sessions, no todo-continuation", {
      disabledFeatures: ["todo-continuation"],
    }),
  )
  await settleStartup()

  const warmup = QUICK ? 3 : 5
  const rounds = QUICK ? 10 : 60
  const times: number[][] = handlers.map(() => [])
  for (let r = 0; r < warmup + rounds; r += 1) {
    for (let k = 0; k < handlers.length; k += 1) {
      const h = (k + r) % handlers.length // rotate the order every round
      const ns = await nsPerEvent((handlers[h] as Handler).handle, turns, count)
      if (r >= warmup) (times[h] as number[]).push(ns)
    }
  }

  const noop = times[0] as number[]
  const hundred = times[handlers.findIndex((h) => h.sessions === 100)] as number[]
  const mix: Record<string, number> = {}
  for (const e of turns.flat()) mix[e.type] = (mix[e.type] ?? 0) + 1
  return {
    eventsPerBatch: count,
    rounds,
    mix,
    handlers: handlers.map((h, i) => {
      const own = times[i] as number[]
      return {
        name: h.name,
        sessions: h.sessions,
        loops: h.loops,
        nsPerEvent: round(median(own), 1),
        ratioToNoop: round(median(own.map((t, r) => t / (noop[r] as number))), 2),
        ratioTo100Sessions: round(median(own.map((t, r) => t / (hundred[r] as number))), 2),
        clientCalls: h.calls,
      }
    }),
  }
}

/** Runs this benchmark in a child node process. */
export function runEventHookBench(): Promise<EventHookResult> {
  return runChild<EventHookResult>(fileURLToPath(import.meta.url), [], {}, 5 * 60_000)
}

runAsChild(import.meta.url, "event-hook", measure)
