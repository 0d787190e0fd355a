// The OpenCode server a run talks to: `opencode serve` started by the runner in the project (on
// 127.0.0.1 and a free port, in a process group of its own, so a Ctrl-C in the terminal reaches the
// runner alone and the runner decides the order things stop in), or one given with --attach.
// A server the runner started is tied to it by a pipe (the watchdog below): however the runner
// ends — a signal, SIGKILL, a crash — the server's whole group ends with it.
import { spawn, type ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import { watchLiveness } from "./liveness.js"

export interface Host {
  readonly url: string
  /** The runner started this server (and stops it); false for --attach. */
  readonly started: boolean
  readonly pid: number | undefined
  /**
   * Resolves when the server is gone: one the runner started exited (by itself or stopped), or an --attach one stopped
   * answering. How.
   */
  readonly exited: Promise<string>
  /** Asks now whether the server is still there (the event stream dropped); nothing for a server the runner started. */
  alive(): void
  /** The last of what the server printed (its errors, when it does not start). */
  output(): string
  /**
   * Stops a server the runner started — its whole process group, SIGTERM then SIGKILL after `graceMs`; nothing for
   * --attach.
   */
  stop(graceMs?: number): Promise<void>
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

/**
 * How long `opencode serve` may take to listen and boot the project (a first start may npm-install OpenCode's own
 * package).
 */
const START_TIMEOUT_MS = 120_000
/** A boot cancelled (Ctrl-C): how long the server has to exit on SIGTERM before its group gets SIGKILL. */
const CANCEL_GRACE_MS = 1_000
/** After SIGTERM, how long the server has to exit before its group gets SIGKILL. */
const STOP_GRACE_MS = 10_000
const OUTPUT_KEPT = 8_000

/**
 * The watchdog of a server the runner started: a shell of its own (its own process group, so a
 * Ctrl-C in the terminal leaves it be) that reads a pipe from the runner nothing writes to. When the
 * runner's end closes — the runner exited, was killed by a signal, crashed — it kills the server's
 * whole group ($1). Not in that group itself: the runner reaps it, and the group is the server's
 * alone. Killed by the runner once the server has exited. As checks.ts does for a check.
 */
const WATCHDOG = 'read -r _; kill -9 -"$1" 2>/dev/null'

function startWatchdog(pgid: number): ChildProcess | undefined {
  try {
    const watchdog = spawn("sh", ["-c", WATCHDOG, "ralph-loop-watchdog", String(pgid)], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    })
    watchdog.on("error", () => undefined)
    watchdog.stdin?.on("error", () => undefined)
    return watchdog
  } catch {
    return undefined
  }
}

// A server still running when the runner exits through process.exit is ended at once, by its group
// (the watchdog would end it a moment later).
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

/** The start was cancelled (a signal came while OpenCode booted); the server it began is gone. */
export class StartCancelled extends Error {}

/** `signal`: aborted, the start stops at once (its server stopped) and throws StartCancelled. */
type StartOptions = { bin: string; project: string; env: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal }

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
    if (!(error instanceof ExitedEarly) || options.signal?.aborted) throw error
    return startServe(options)
  }
}

async function startServe(options: StartOptions): Promise<Host> {
  const port = await freePort()
  let child: ChildProcess
  try {
    child = spawn(options.bin, ["serve", "--port", String(port), "--hostname", "127.0.0.1"], {
      cwd: options.project,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    })
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
  const watchdog = pid !== undefined ? startWatchdog(pid) : undefined
  const exited = new Promise<string>((resolve) => {
    child.once("error", (error) => resolve(`could not run: ${error.message}`))
    child.once("exit", (code, signal) => {
      if (pid !== undefined) running.delete(pid)
      // The server is gone: its watchdog has nothing left to guard.
      watchdog?.kill("SIGKILL")
      watchdog?.stdin?.destroy()
      resolve(signal ? `ended by ${signal}` : `exited with code ${code}`)
    })
  })
  let gone: string | undefined
  void exited.then((how) => (gone = how))
  const stop = async (graceMs = STOP_GRACE_MS) => {
    if (pid === undefined || gone !== undefined) return
    killGroup(pid, "SIGTERM")
    const timer = setTimeout(() => killGroup(pid, "SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
    // Anything of its group still there (it starts none today) goes too.
    killGroup(pid, "SIGKILL")
  }
  const url = `http://127.0.0.1:${port}`
  const host: Host = { url, started: true, pid, exited, alive: () => undefined, output: () => output, stop }
  const timeoutMs = options.timeoutMs ?? START_TIMEOUT_MS
  const deadline = Date.now() + timeoutMs
  const signal = options.signal
  try {
    const listening = () => gone ?? (output.includes("server listening on") ? true : undefined)
    await until(
      listening,
      deadline,
      `${options.bin} serve printed no "listening" line within ${timeoutMs / 1000} s`,
      signal,
    )
    if (gone !== undefined) throw new ExitedEarly(`${options.bin} serve ${gone} before it listened`)
    await ready(url, options.project, deadline, signal)
  } catch (error) {
    await stop(signal?.aborted ? CANCEL_GRACE_MS : STOP_GRACE_MS)
    if (signal?.aborted) {
      if (pid !== undefined) killGroup(pid, "SIGKILL")
      throw new StartCancelled("cancelled while OpenCode booted")
    }
    // A server that exited by itself is not stopped: anything of its group goes all the same.
    if (pid !== undefined) killGroup(pid, "SIGKILL")
    const said = output.trim().split("\n").slice(-12).join("\n")
    const message = `${error instanceof Error ? error.message : String(error)}${said ? `\n${said}` : ""}`
    throw error instanceof ExitedEarly ? new ExitedEarly(message) : new HostError(message)
  }
  return host
}

/**
 * A server someone else runs: checked to answer for the project, never stopped; `exited` when it stops answering
 * (liveness.ts).
 */
export async function attachHost(
  url: string,
  project: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Host> {
  try {
    await ready(url, project, Date.now() + (options.timeoutMs ?? 30_000), options.signal)
  } catch (error) {
    if (options.signal?.aborted) throw new StartCancelled("cancelled while waiting for the server")
    throw new HostError(
      `no OpenCode server answers at ${url}: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  const liveness = watchLiveness(url)
  return {
    url,
    started: false,
    pid: undefined,
    exited: liveness.gone,
    alive: liveness.check,
    output: () => "",
    stop: async () => liveness.stop(),
  }
}

/** GET /config for the project: it boots the project's instance (its plugins) and answers once it has. */
async function ready(url: string, project: string, deadline: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = Math.max(1_000, deadline - Date.now())
  const timeout = AbortSignal.timeout(ms)
  let res: Response
  try {
    res = await fetch(`${url}/config?directory=${encodeURIComponent(project)}`, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    })
  } catch (error) {
    if (timeout.aborted)
      throw new HostError(
        `GET /config for ${project} (the project's instance booting, its plugins loaded) did not answer within ` +
          `${Math.round(ms / 1000)} s`,
      )
    throw error
  }
  if (!res.ok) throw new HostError(`GET /config answered ${res.status}`)
}

/** Waits for a value from `check` (the server's output is watched as it comes; this only looks at it). */
async function until<T>(
  check: () => T | undefined,
  deadline: number,
  timedOut: string,
  signal: AbortSignal | undefined,
): Promise<T> {
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (signal?.aborted) throw new StartCancelled("cancelled")
    if (Date.now() > deadline) throw new HostError(timedOut)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
