// What the soak measures from outside: OpenCode's memory and open files (from /proc, by the server's
// PID), the disk the loop's files take, and the plugin's own gauges — the line it writes to
// OpenCode's log at each decision and stop when RALPH_LOOP_DEBUG=1 (live loops, armed timers, the
// store's in-memory maps). The plugin adds no event listeners of its own (OpenCode calls its
// hooks), so there is no listener count to read.
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

export interface ProcessStats {
  /** Resident memory, KiB (VmRSS). */
  rssKB: number
  /** Open file descriptors. */
  fds: number
  threads: number
}

/** RSS, open fds and threads of a process; undefined where /proc is not there (not Linux) or it is gone. */
export function processStats(pid: number): ProcessStats | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN)
    return { rssKB: field("VmRSS"), fds: readdirSync(`/proc/${pid}/fd`).length, threads: field("Threads") }
  } catch {
    return undefined
  }
}

/** Bytes of the files under `dir` (symlinks not followed), and how many files. */
export function diskUsage(dir: string): { bytes: number; files: number } {
  if (!existsSync(dir)) return { bytes: 0, files: 0 }
  let bytes = 0
  let files = 0
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name)
      if (entry.isDirectory()) walk(full)
      else {
        bytes += lstatSync(full).size
        files += 1
      }
    }
  }
  walk(dir)
  return { bytes, files }
}

export interface Gauges {
  loops: number
  timers: number
  writes: number
  batches: number
  states: number
  newSessions: number
}

/**
 * The last "ralph-loop gauges" line in OpenCode's output, if any. OpenCode prints a plugin's log
 * line with its extra fields as key=value pairs.
 */
export function lastGauges(output: string): Gauges | undefined {
  const at = output.lastIndexOf("ralph-loop gauges")
  if (at < 0) return undefined
  const end = output.indexOf("\n", at)
  return gaugesOf(output.slice(at, end < 0 ? undefined : end))
}

/**
 * The gauges logged at `loop`'s stop. The log lines come through OpenCode's HTTP log endpoint, one
 * request each, so they may arrive out of order (the probe's decision after its stop, another loop's
 * late stop): the line is found by its loop and event, not by being the last.
 */
export function stopGauges(output: string, loop: string): Gauges | undefined {
  const line = output
    .split("\n")
    .findLast((l) => l.includes("ralph-loop gauges") && l.includes(`loop=${loop} `) && l.includes("event=stopped:"))
  return line === undefined ? undefined : gaugesOf(line)
}

function gaugesOf(line: string): Gauges | undefined {
  const value = (key: keyof Gauges) => Number(new RegExp(`\\b${key}=(\\d+)`).exec(line)?.[1] ?? Number.NaN)
  const gauges: Gauges = {
    loops: value("loops"),
    timers: value("timers"),
    writes: value("writes"),
    batches: value("batches"),
    states: value("states"),
    newSessions: value("newSessions"),
  }
  return Object.values(gauges).some(Number.isNaN) ? undefined : gauges
}
