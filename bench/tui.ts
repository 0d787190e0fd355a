// Benchmark — the TUI half's cost in the real OpenCode TUI under tmux (test/harness/tui.ts), with the
// scripted model.
//
// 1. Idle CPU: a one-turn loop runs and ends in a session; then, after a warm-up, the opencode TUI
//    process's CPU time (utime + stime of /proc/<pid>/stat: every thread, the TUI's server worker
//    included) over 60 idle seconds — with the TUI half listed in tui.json (its panel shows the ended
//    loop) and without it. Alternated, `rounds` times each, so a change of the machine's load falls
//    on both.
// 2. Redraws while a loop runs: the TUI half appends a line to RALPH_LOOP_BENCH_REDRAWS each time the
//    sidebar panel's text changes (src/tui/redraw-log.ts); counted from the loop's first request to
//    its end, as a rate and as the most in any one second.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import type { MockRequest, Reply } from "../test/harness/mock-model.js"
import { startTui, type Tui, type TuiOptions } from "../test/harness/tui.js"
import { waitUntil } from "../test/harness/wait.js"
import { QUICK, round, sleep } from "./util.js"

export interface IdleCpu {
  withTui: boolean
  /** CPU seconds the process used over the window. */
  cpuSeconds: number
  windowSeconds: number
  /** Percent of one core. */
  percent: number
  loadAverage: { start: number; end: number }
}

export interface TuiBenchResult {
  idle: IdleCpu[]
  idlePercent: { withTui: number; withoutTui: number }
  redraws: {
    iterations: number
    loopSeconds: number
    /** Changes of the panel's text while the loop ran. */
    changes: number
    perSecond: number
    /** The most changes within any one second. */
    maxInOneSecond: number
  }
}

const IDLE_SECONDS = 60
const WARMUP_SECONDS = QUICK ? 5 : 15
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/** utime + stime of `pid`, in seconds (fields 14 and 15, counted after the command's closing parenthesis). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

async function open(name: string, options: TuiOptions): Promise<Tui> {
  const tui = await startTui(name, options)
  try {
    await tui.waitForScreen("Ask anything", 120_000)
  } catch (error) {
    await tui.stop()
    throw error
  }
  return tui
}

async function startLoop(tui: Tui, task: string): Promise<void> {
  tui.type(`/ralph ${task}`)
  tui.press("Enter")
  await tui.mock.waitFor(() => tui.requests("main").length >= 1, 120_000, "the loop's first request")
}

async function idleCpu(log: (line: string) => void, withTui: boolean, round_: number): Promise<IdleCpu> {
  const tui = await open(`idle-${withTui ? "with" : "without"}-${round_}`, {
    withTui,
    script: { main: [{ text: "Done. <promise>DONE</promise>" }] },
  })
  try {
    await startLoop(tui, "a one-turn task")
    await waitUntil(() => tui.loops()[0]?.phase === "stopped", "the loop to end", 120_000)
    if (withTui) await tui.waitForScreen("ended: completed")
    log(
      `tui: idle CPU ${withTui ? "with" : "without"} the TUI half (round ${round_}): ${WARMUP_SECONDS} s warm-up, then ${IDLE_SECONDS} s`,
    )
    await sleep(WARMUP_SECONDS * 1000)
    const load = loadavg()[0] ?? 0
    const before = cpuSeconds(tui.pid)
    const started = Date.now()
    await sleep(IDLE_SECONDS * 1000)
    const used = cpuSeconds(tui.pid) - before
    const window = (Date.now() - started) / 1000
    return {
      withTui,
      cpuSeconds: round(used, 2),
      windowSeconds: round(window, 1),
      percent: round((used / window) * 100, 2),
      loadAverage: { start: round(load, 2), end: round(loadavg()[0] ?? 0, 2) },
    }
  } finally {
    await tui.stop()
  }
}

/** Iteration n writes a file (progress, so no breaker opens), then answers; the last one promises. */
function slowIterations(iterations: number, delayMs: number, tui: () => Tui) {
  return (r: MockRequest): Reply => {
    const iteration = tui()
      .requests("main")
      .filter((q) => q.lastRole === "user").length
    if (r.lastRole === "tool")
      return {
        text: iteration >= iterations ? "All done. <promise>DONE</promise>" : `Iteration ${iteration} written.`,
        delayMs,
      }
    return {
      toolCalls: [{ name: "write", args: { filePath: "work.txt", content: `version ${iteration}\n` } }],
      delayMs,
    }
  }
}

async function redraws(log: (line: string) => void): Promise<TuiBenchResult["redraws"]> {
  const iterations = QUICK ? 4 : 10
  let tui!: Tui
  const redrawFile = join(tmpdir(), `ralph-bench-redraws-${process.pid}.log`)
  tui = await open("redraws", {
    pluginOptions: { strategy: "continue", maxIterations: iterations + 5 },
    env: { RALPH_LOOP_BENCH_REDRAWS: redrawFile },
    script: { main: slowIterations(iterations, 1_000, () => tui) },
  })
  try {
    log(`tui: redraws while a loop of ${iterations} iterations runs`)
    await startLoop(tui, "write the work file again and again")
    const started = Date.now()
    await waitUntil(() => tui.loops()[0]?.phase === "stopped", "the loop to end", 600_000)
    await tui.waitForScreen("ended: completed")
    const ended = Date.now()
    const times = (existsSync(redrawFile) ? readFileSync(redrawFile, "utf8") : "")
      .split("\n")
      .filter((line) => line.includes(" sidebar "))
      .map((line) => Number(line.split(" ")[0]))
      .filter((t) => t >= started && t <= ended)
    let maxInOneSecond = 0
    for (let i = 0, j = 0; i < times.length; i++) {
      while ((times[i] as number) - (times[j] as number) >= 1_000) j++
      maxInOneSecond = Math.max(maxInOneSecond, i - j + 1)
    }
    const seconds = (ended - started) / 1000
    return {
      iterations,
      loopSeconds: round(seconds, 1),
      changes: times.length,
      perSecond: round(times.length / seconds, 2),
      maxInOneSecond,
    }
  } finally {
    await tui.stop()
    rmSync(redrawFile, { force: true })
  }
}

export async function runTuiBench(log: (line: string) => void): Promise<TuiBenchResult> {
  const rounds = QUICK ? 1 : 2
  const idle: IdleCpu[] = []
  for (let r = 1; r <= rounds; r++) {
    idle.push(await idleCpu(log, false, r))
    idle.push(await idleCpu(log, true, r))
  }
  const mean = (withTui: boolean) => {
    const of = idle.filter((i) => i.withTui === withTui)
    return round(of.reduce((sum, i) => sum + i.percent, 0) / of.length, 2)
  }
  return { idle, idlePercent: { withTui: mean(true), withoutTui: mean(false) }, redraws: await redraws(log) }
}
