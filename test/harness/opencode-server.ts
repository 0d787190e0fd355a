// Starts the real `opencode serve` from the pinned opencode-ai package, isolated from the user's
// machine: HOME, every XDG_* directory and the temp dir live under a temp root, the server listens on
// 127.0.0.1 on a free port, and it is ended by PID — on success and on failure.
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { freePort } from "../../src/cli/run/host.js"
import { dirname, join } from "node:path"

const require = createRequire(import.meta.url)

// Children still alive when this process exits (a crashed test run) are ended too, by PID.
const live = new Set<ChildProcess>()
process.once("exit", () => {
  for (const child of live) if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, "SIGKILL")
})

/** The platform ELF shipped inside the opencode-linux-* package (no postinstall needed). */
export function opencodeBinary(): string {
  const override = process.env.RALPH_TEST_OPENCODE_BIN
  if (override) return override
  const arch = process.arch === "arm64" ? "arm64" : "x64"
  const os = process.platform === "darwin" ? "darwin" : process.platform === "win32" ? "windows" : "linux"
  const avx2 = os !== "linux" || arch !== "x64" || /\bavx2\b/.test(readFileSync("/proc/cpuinfo", "utf8"))
  const candidates = [`opencode-${os}-${arch}${avx2 ? "" : "-baseline"}`, `opencode-${os}-${arch}-baseline`]
  for (const name of candidates) {
    try {
      const bin = join(
        dirname(require.resolve(`${name}/package.json`)),
        "bin",
        os === "windows" ? "opencode.exe" : "opencode",
      )
      if (existsSync(bin)) return bin
    } catch {
      // not installed for this platform; try the next
    }
  }
  return join(dirname(require.resolve("opencode-ai/package.json")), "bin", "opencode.exe")
}

/**
 * HOME, XDG directories and the temp dir under `root`, plus OpenCode's offline switches. The temp
 * dir matters: each OpenCode start extracts its native libraries (~5.5 MB each) into it, and no
 * one removes them.
 */
export function isolatedEnv(root: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = join(root, "home")
  const tmp = join(root, "tmp")
  mkdirSync(tmp, { recursive: true })
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: process.env.LANG ?? "C.UTF-8",
    TERM: "dumb",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    TMPDIR: tmp,
    TMP: tmp,
    TEMP: tmp,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER: "1",
    ...extra,
  }
  for (const key of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"] as const) {
    mkdirSync(env[key] as string, { recursive: true })
  }
  seedConfigDir(join(env.XDG_CONFIG_HOME as string, "opencode"))
  return env
}

/**
 * OpenCode npm-installs @opencode-ai/plugin into every config directory at boot (about 9 s, and it
 * fails offline) unless node_modules exists and the lockfile lists every dependency.
 */
export function seedConfigDir(dir: string): void {
  mkdirSync(dir, { recursive: true })
  const nodeModules = join(dir, "node_modules")
  if (!existsSync(nodeModules)) mkdirSync(nodeModules)
  writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: { "@opencode-ai/plugin": "*" } }))
  writeFileSync(
    join(dir, "package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } } }),
  )
}

export interface OpencodeServer {
  readonly url: string
  readonly pid: number
  /** Everything the server printed so far (stdout and stderr, with --print-logs). */
  output(): string
  /** Ends the server by PID: SIGTERM (then SIGKILL after a grace period), or SIGKILL at once. */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>
  /** Resolves with the signal that ended the server when it exits on its own (a crash); rejects after `timeoutMs`. */
  exited(timeoutMs: number): Promise<NodeJS.Signals | null>
}

export async function startOpencodeServer(options: {
  cwd: string
  env: NodeJS.ProcessEnv
  readyDirectory: string
  timeoutMs?: number
}): Promise<OpencodeServer> {
  const port = await freePort()
  // RALPH_TEST_OPENCODE_LOG_LEVEL=DEBUG: OpenCode's own boot steps in its log (for measuring, e.g. bench/worktree.ts).
  const level = process.env.RALPH_TEST_OPENCODE_LOG_LEVEL
  const args = [
    "serve",
    "--port",
    String(port),
    "--hostname",
    "127.0.0.1",
    "--print-logs",
    ...(level ? ["--log-level", level] : []),
  ]
  const child = spawn(opencodeBinary(), args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  })
  live.add(child)
  child.once("exit", () => live.delete(child))
  let output = ""
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()))
  const url = `http://127.0.0.1:${port}`
  const server: OpencodeServer = {
    url,
    pid: child.pid ?? -1,
    output: () => output,
    stop: (signal) => stopChild(child, signal),
    exited: (timeoutMs) => exitOf(child, timeoutMs),
  }
  try {
    await waitUntilReady(url, options.readyDirectory, child, () => output, options.timeoutMs ?? 60_000)
  } catch (error) {
    await server.stop()
    throw new Error(`opencode serve did not become ready: ${String(error)}\n--- output ---\n${output.slice(-4000)}`)
  }
  return server
}

/**
 * Waits for the "listening" line, then for GET /config of `directory` (which boots that instance).
 * A request sent before the listening line can hang for good, so none is sent before it.
 */
async function waitUntilReady(
  url: string,
  directory: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!output().includes("server listening on")) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`)
    if (Date.now() > deadline) throw new Error(`no "listening" line within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
  const res = await fetch(`${url}/config?directory=${encodeURIComponent(directory)}`, {
    signal: AbortSignal.timeout(Math.max(1_000, deadline - Date.now())),
  })
  if (!res.ok) throw new Error(`GET /config answered ${res.status}`)
}

function exitOf(child: ChildProcess, timeoutMs: number): Promise<NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`opencode serve (pid ${child.pid}) did not exit within ${timeoutMs} ms`)),
      timeoutMs,
    )
    child.once("exit", (_code, signal) => {
      clearTimeout(timer)
      resolve(signal)
    })
  })
}

/** SIGTERM, then SIGKILL if it has not exited after a grace period. Only our own child, by PID. */
export async function stopChild(
  child: ChildProcess,
  signal: "SIGTERM" | "SIGKILL" = "SIGTERM",
  graceMs = 5_000,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  process.kill(child.pid, signal)
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
      process.kill(child.pid, "SIGKILL")
  }, graceMs)
  await exited
  clearTimeout(timer)
}
