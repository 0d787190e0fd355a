// Runs the loop's checks in the project directory: a shell command each, with a timeout that kills
// its whole process group, output captured and bounded, then parsed into counts.
import { spawn } from "node:child_process"
import type { CheckConfig } from "../config/schema.js"
import { parseCheckOutput, type CheckResult } from "../loop/diagnostics.js"

const OUTPUT_LIMIT = 16 * 1024
const DEFAULT_TIMEOUT_SECONDS = 300

export async function runCheck(check: CheckConfig, directory: string): Promise<CheckResult> {
  const started = Date.now()
  const timeoutMs = (check.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000
  const { exitCode, output, timedOut, spawnError } = await run(check.command, directory, timeoutMs)
  const durationMs = Date.now() - started
  const base = { name: check.name, kind: check.kind, command: check.command, exitCode, durationMs, output }
  const empty = { errors: 0, warnings: 0, info: 0, security: 0, testsRun: 0, testsFailed: 0, testsPassed: 0, files: [] }
  if (spawnError) return { ...base, ...empty, status: "error", output: spawnError }
  if (timedOut) return { ...base, ...empty, status: "timeout", output: `${output}\n[killed after ${timeoutMs / 1000} s]` }
  if (exitCode === 127 || /command not found|not recognized as an internal/i.test(output.slice(-500)))
    return { ...base, ...empty, status: "missing", output: `${output}\n[the command was not found: is the tool installed?]` }
  const counts = parseCheckOutput(check.kind, output, exitCode, directory)
  return { ...base, ...counts, status: exitCode === 0 ? "passed" : "failed" }
}

function run(command: string, cwd: string, timeoutMs: number): Promise<{ exitCode: number | null; output: string; timedOut: boolean; spawnError?: string }> {
  return new Promise((resolve) => {
    let output = ""
    let timedOut = false
    const child = spawn("sh", ["-c", command], { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "true", FORCE_COLOR: "0" } })
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-OUTPUT_LIMIT)
    }
    child.stdout?.on("data", keep)
    child.stderr?.on("data", keep)
    const timer = setTimeout(() => {
      timedOut = true
      // The whole group: a test runner's own children must not outlive the check.
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL")
        } catch {
          child.kill("SIGKILL")
        }
      }
    }, timeoutMs)
    child.once("error", (error) => {
      clearTimeout(timer)
      resolve({ exitCode: null, output, timedOut: false, spawnError: error.message })
    })
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ exitCode: code, output, timedOut })
    })
  })
}
