// The OpenCode server a run talks to: `opencode serve` started by the runner in the project (on
// 127.0.0.1 and a free port, in a process group of its own, so a Ctrl-C in the terminal reaches the
// runner alone and the runner decides the order things stop in), or one given with --attach.
import { spawn, type ChildProcess } from "node:child_process"
import { createServer } from "node:net"

export interface Host {
  readonly url: string
  /** The runner started this server (and stops it); false for --attach. */
  readonly started: boolean
  readonly pid: number | undefined
  /** Resolves when a server the runner started exits (by itself or stopped): how it ended. Never for --attach. */
  readonly exited: Promise<string>
  /** The last of what the server printed (its errors, when it does not start). */
  output(): string
  /** Stops a server the runner started — its whole process group, SIGTERM then SIGKILL; nothing for --attach. */
  stop(): Promise<void>
}

export class HostError extends Error {}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** How long `opencode serve` may take to listen and boot the project (a first start may npm-install OpenCode's own package). */
const START_TIMEOUT_MS = 120_000
/** After SIGTERM, how long the server has to exit before its group gets SIGKILL. */
const STOP_GRACE_MS = 10_000
const OUTPUT_KEPT = 8_000

// A server still running when the runner exits any other way (a crash) is ended too, by its group.
const running = new Set<number>()
process.once("exit", () => {
  for (const pid of running) killGroup(pid, "SIGKILL")
})

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

/** The server exited before it listened. */
class ExitedEarly extends HostError {}

type StartOptions = { bin: string; project: string; env: NodeJS.ProcessEnv; timeoutMs?: number }

/**
 * Starts `opencode serve` — once more when it exits before it listens: OpenCode's first start on a
 * fresh data folder can lose a race with another start's database migration ("database is
 * locked", "Failed query: CREATE TABLE …", exit 1; docs/opencode-notes.md). A start that fails
 * for good fails twice, as fast.
 */
export async function startHost(options: StartOptions): Promise<Host> {
  try {
    return await startServe(options)
  } catch (error) {
    if (!(error instanceof ExitedEarly)) throw error
    return startServe(options)
  }
}

async function startServe(options: StartOptions): Promise<Host> {
  const port = await freePort()
  let child: ChildProcess
  try {
    child = spawn(options.bin, ["serve", "--port", String(port), "--hostname", "127.0.0.1"], { cwd: options.project, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true })
  } catch (error) {
    throw new HostError(`could not start ${options.bin}: ${error instanceof Error ? error.message : String(error)}`)
  }
  let output = ""
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT)
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const pid = child.pid
  if (pid !== undefined) running.add(pid)
  const exited = new Promise<string>((resolve) => {
    child.once("error", (error) => resolve(`could not run: ${error.message}`))
    child.once("exit", (code, signal) => {
      if (pid !== undefined) running.delete(pid)
      resolve(signal ? `ended by ${signal}` : `exited with code ${code}`)
    })
  })
  let gone: string | undefined
  void exited.then((how) => (gone = how))
  const stop = async () => {
    if (pid === undefined || gone !== undefined) return
    killGroup(pid, "SIGTERM")
    const timer = setTimeout(() => killGroup(pid, "SIGKILL"), STOP_GRACE_MS)
    await exited
    clearTimeout(timer)
    // Anything of its group still there (it starts none today) goes too.
    killGroup(pid, "SIGKILL")
  }
  const url = `http://127.0.0.1:${port}`
  const host: Host = { url, started: true, pid, exited, output: () => output, stop }
  const deadline = Date.now() + (options.timeoutMs ?? START_TIMEOUT_MS)
  try {
    await until(() => gone ?? (output.includes("server listening on") ? true : undefined), deadline, "its \"listening\" line")
    if (gone !== undefined) throw new ExitedEarly(`${options.bin} serve ${gone} before it listened`)
    await ready(url, options.project, deadline)
  } catch (error) {
    await stop()
    // A server that exited by itself is not stopped: anything of its group goes all the same.
    if (pid !== undefined) killGroup(pid, "SIGKILL")
    const said = output.trim().split("\n").slice(-12).join("\n")
    const message = `${error instanceof Error ? error.message : String(error)}${said ? `\n${said}` : ""}`
    throw error instanceof ExitedEarly ? new ExitedEarly(message) : new HostError(message)
  }
  return host
}

/** A server someone else runs: checked to answer for the project, never stopped. */
export async function attachHost(url: string, project: string, timeoutMs = 30_000): Promise<Host> {
  try {
    await ready(url, project, Date.now() + timeoutMs)
  } catch (error) {
    throw new HostError(`no OpenCode server answers at ${url}: ${error instanceof Error ? error.message : String(error)}`)
  }
  return { url, started: false, pid: undefined, exited: new Promise(() => undefined), output: () => "", stop: async () => undefined }
}

/** GET /config for the project: it boots the project's instance (its plugins) and answers once it has. */
async function ready(url: string, project: string, deadline: number): Promise<void> {
  const res = await fetch(`${url}/config?directory=${encodeURIComponent(project)}`, { signal: AbortSignal.timeout(Math.max(1_000, deadline - Date.now())) })
  if (!res.ok) throw new HostError(`GET /config answered ${res.status}`)
}

/** Waits for a value from `check` (the server's output is watched as it comes; this only looks at it). */
async function until<T>(check: () => T | undefined, deadline: number, what: string): Promise<T> {
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new HostError(`no ${what} in time`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
