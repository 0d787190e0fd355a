// Runs the loop's checks in the project directory: a shell command each, in a process group of its
// own that is killed whole at its timeout, when the plugin is disposed, or when OpenCode's process
// ends; output captured and bounded, then parsed into counts.
import { spawn } from "node:child_process"
import type { CheckConfig } from "../config/schema.js"
import { parseCheckOutput, type CheckResult } from "./diagnostics.js"
import { createHash } from "node:crypto"
import { testCounts } from "./test-counts.js"
import { failureIdentities } from "./failures/index.js"

const OUTPUT_LIMIT = 16 * 1024
/** The output the test counts are read from (issue 39): whole, up to this much (a runner's summary ends it). */
const WHOLE_LIMIT = 8 * 1024 * 1024
const DEFAULT_TIMEOUT_SECONDS = 300
const FAILED_AT_ZERO = (n: number) =>
  `[exit code 0, but the runner's summary reports ${n} failed test${n === 1 ? "" : "s"}: the check failed]`

/**
 * The shell that leads a check's process group and runs the check ($1). Its stdin is a pipe from
 * OpenCode's process that nothing writes to: when that process ends — also killed by a signal, when
 * no dispose runs — the watcher reads EOF and kills the whole group. (A background list's stdin is
 * /dev/null unless redirected, hence fd 3.)
 */
const GROUP_LEADER = [
  "exec 3<&0",
  "(read -r _ <&3; kill -9 0) >/dev/null 2>&1 &",
  "watcher=$!",
  'sh -c "$1" </dev/null 3<&-',
  "code=$?",
  'kill "$watcher" 2>/dev/null',
  "exit $code",
].join("\n")

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    // the group is gone already
  }
}

/**
 * The process groups of the checks one plugin instance is running: all killed when the instance is
 * disposed, and no check starts after that.
 */
export class CheckGroups {
  private readonly running = new Set<number>()
  private closed = false

  get isClosed(): boolean {
    return this.closed
  }

  add(pid: number): void {
    if (this.closed) killGroup(pid)
    else this.running.add(pid)
  }

  delete(pid: number): void {
    this.running.delete(pid)
  }

  killAll(): void {
    this.closed = true
    for (const pid of this.running) killGroup(pid)
    this.running.clear()
  }
}

export async function runCheck(
  check: CheckConfig,
  directory: string,
  groups = new CheckGroups(),
): Promise<CheckResult> {
  const started = Date.now()
  const timeoutMs = (check.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000
  const base = { name: check.name, kind: check.kind, command: check.command, exitCode: null, durationMs: 0, output: "" }
  const empty = { errors: 0, warnings: 0, info: 0, security: 0, testsRun: 0, testsFailed: 0, testsPassed: 0, files: [] }
  const stopped = { ...base, ...empty, status: "error" as const, output: "[not run: the plugin was disposed]" }
  if (groups.isClosed) return stopped
  const { exitCode, output, timedOut, spawnError, whole, sha256 } = await run(
    check.command,
    directory,
    timeoutMs,
    groups,
  )
  const durationMs = Date.now() - started
  const ran = { ...base, exitCode, durationMs, output, tests: testCounts(whole), outputSha256: sha256 }
  if (spawnError) return { ...ran, ...empty, status: "error", output: spawnError }
  if (timedOut)
    return { ...ran, ...empty, status: "timeout", output: `${output}\n[killed after ${timeoutMs / 1000} s]` }
  if (groups.isClosed) return { ...stopped, ...ran, output: `${output}\n[killed: the plugin was disposed]` }
  if (exitCode === 127 || /command not found|not recognized as an internal/i.test(output.slice(-500)))
    return {
      ...ran,
      ...empty,
      status: "missing",
      output: `${output}\n[the command was not found: is the tool installed?]`,
    }
  const counts = parseCheckOutput(check.kind, output, exitCode, directory)
  // The runner's own summary counts (issue 46): "1 failed" is a failure whatever the exit code says.
  const failedTests = ran.tests !== null && ran.tests.failed > 0
  if (exitCode === 0 && failedTests) {
    const failures = counts.failures?.length ? counts.failures : failureIdentities(whole, directory)
    const testsFailed = Math.max(counts.testsFailed, ran.tests!.failed)
    const note = FAILED_AT_ZERO(ran.tests!.failed)
    return { ...ran, ...counts, testsFailed, failures, status: "failed", output: `${output}\n${note}` }
  }
  return { ...ran, ...counts, status: exitCode === 0 ? "passed" : "failed" }
}

function run(
  command: string,
  cwd: string,
  timeoutMs: number,
  groups: CheckGroups,
): Promise<{
  exitCode: number | null
  output: string
  timedOut: boolean
  spawnError?: string
  whole: string
  sha256: string
}> {
  return new Promise((resolve) => {
    let output = ""
    const hash = createHash("sha256")
    const chunks: Buffer[] = []
    let kept = 0
    let timedOut = false
    const child = spawn("sh", ["-c", GROUP_LEADER, "ralph-loop-check", command], {
      cwd,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, CI: "true", FORCE_COLOR: "0" },
    })
    const pid = child.pid
    if (pid !== undefined) groups.add(pid)
    child.stdin?.on("error", () => undefined) // never written to; its end is the signal
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-OUTPUT_LIMIT)
      hash.update(chunk)
      if (kept < WHOLE_LIMIT) chunks.push(chunk)
      kept += chunk.length
    }
    // Once: both "error" and "close" may come, and a hash is read only once.
    let ended: { whole: string; sha256: string } | undefined
    const whole = () => (ended ??= { whole: Buffer.concat(chunks).toString("utf8"), sha256: hash.digest("hex") })
    child.stdout?.on("data", keep)
    child.stderr?.on("data", keep)
    const timer = setTimeout(() => {
      timedOut = true
      // The whole group: a test runner's own children must not outlive the check.
      if (pid !== undefined) killGroup(pid)
    }, timeoutMs)
    const done = () => {
      clearTimeout(timer)
      if (pid !== undefined) groups.delete(pid)
      child.stdin?.destroy()
    }
    child.once("error", (error) => {
      done()
      resolve({ exitCode: null, output, timedOut: false, spawnError: error.message, ...whole() })
    })
    child.once("close", (code) => {
      done()
      resolve({ exitCode: code, output, timedOut, ...whole() })
    })
  })
}
