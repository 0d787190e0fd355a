// Shared by the benchmarks: statistics, the built plugin with a fake client (for the in-process
// benchmarks, which measure our own CPU and heap, not OpenCode), and running a child process.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import type { Hooks, PluginInput, PluginModule } from "@opencode-ai/plugin"
import { packageDir } from "../test/harness/harness.js"

export const QUICK = process.env.RALPH_BENCH_QUICK === "1" || process.argv.includes("--quick")

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Lets every queued microtask, resolved promise and immediate run. */
export const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Handles and requests other than timers: files, child processes and their pipes, sockets. A folder
 * watch (`FSEventWrap`: the control channel's) stands for the plugin's whole life; it is not work.
 */
const STANDING = new Set(["Timeout", "Immediate", "FSEventWrap"])
const busyResources = () => process.getActiveResourcesInfo().filter((r) => !STANDING.has(r)).length
const idleResources = busyResources() // this process's own (stdout and stderr pipes)

/**
 * Waits until nothing the plugin started in the background is still under way — file writes (it
 * persists loops), git runs (its progress baseline) — so a measurement neither counts their
 * buffers nor races with them.
 */
export async function settleIO(timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    await drain()
    if (busyResources() <= idleResources) return
    if (Date.now() > deadline)
      throw new Error(`background work still under way: ${process.getActiveResourcesInfo().join(", ")}`)
    await sleep(5)
  }
}

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits))

/** The built plugin module (dist/index.js), imported the way OpenCode imports it. */
export async function loadRalph(): Promise<PluginModule> {
  return (await loadDist<{ default: PluginModule }>("index.js")).default
}

/** Another module of the built plugin, e.g. "opencode/events.js". */
export async function loadDist<T>(path: string): Promise<T> {
  return (await import(pathToFileURL(join(packageDir(), "dist", path)).href)) as T
}

/**
 * Waits out what a new plugin instance does in the background after it loaded (it looks for loops
 * to recover once a grace period has passed, reading its state files), so that a measurement
 * neither counts it nor races with it.
 */
export async function settleStartup(): Promise<void> {
  const recover = await loadDist<{ RECOVERY_GRACE_MS?: number }>("actions/jobs/recover.js").catch(() => ({
    RECOVERY_GRACE_MS: 0,
  }))
  await sleep((recover.RECOVERY_GRACE_MS ?? 0) + 250)
  await settleIO()
}

/** The plugin's built-in defaults (dist/config/schema.js), e.g. its settle delay. */
export async function ralphDefaults(): Promise<Record<string, unknown>> {
  const schema = await loadDist<{ DEFAULT_SETTINGS?: Record<string, unknown> }>("config/schema.js").catch(() => ({
    DEFAULT_SETTINGS: {},
  }))
  return schema.DEFAULT_SETTINGS ?? {}
}

/** Counts the client calls the plugin made, so a benchmark can tell its work really happened. */
export interface FakeClientStats {
  calls: Record<string, number>
}

/**
 * A stand-in for OpenCode's v1 client: every call the plugin makes resolves at once with
 * `{ data, error: undefined }`. `session.messages` returns one ended turn with a new assistant
 * message id each time, without the promise. A call this fake does not know is counted as
 * "unfaked:<name>" (and answered with `{}`), so a new call in src/ shows up in the results.
 */
export function fakeClient(): { client: PluginInput["client"]; stats: FakeClientStats } {
  const stats: FakeClientStats = { calls: {} }
  let assistant = 0
  const ok = <T>(name: string, data: T) => {
    stats.calls[name] = (stats.calls[name] ?? 0) + 1
    return Promise.resolve({ data, error: undefined, response: { ok: true, status: 200 } })
  }
  const session = (id: string) => ({
    id,
    slug: id,
    projectID: "bench",
    directory: "/bench",
    title: "bench",
    version: "1.18.33",
    time: { created: 0, updated: 0 },
  })
  const model = { providerID: "mock", modelID: "mock-model" }
  const known: Record<string, Record<string, (arg: { path: { id: string } }) => unknown>> = {
    app: { log: () => ok("app.log", true) },
    tui: { showToast: () => ok("tui.showToast", true), publish: () => ok("tui.publish", true) },
    session: {
      get: ({ path }) => ok("session.get", session(path.id)),
      create: () => ok("session.create", session(`ses_new_${assistant}`)),
      delete: () => ok("session.delete", true),
      status: () => ok("session.status", {}),
      todo: () => ok("session.todo", []),
      summarize: () => ok("session.summarize", true),
      promptAsync: () => ok("session.promptAsync", undefined),
      messages: ({ path }) => {
        assistant += 1
        return ok("session.messages", [
          {
            info: {
              id: `msg_u_${assistant}`,
              sessionID: path.id,
              role: "user",
              agent: "build",
              model,
              time: { created: 0 },
            },
            parts: [
              {
                id: `prt_u_${assistant}`,
                sessionID: path.id,
                messageID: `msg_u_${assistant}`,
                type: "text",
                text: "task",
              },
            ],
          },
          {
            info: {
              id: `msg_a_${assistant}`,
              sessionID: path.id,
              role: "assistant",
              ...model,
              mode: "build",
              time: { created: 0, completed: 1 },
            },
            parts: [
              {
                id: `prt_a_${assistant}`,
                sessionID: path.id,
                messageID: `msg_a_${assistant}`,
                type: "text",
                text: "still working",
              },
            ],
          },
        ])
      },
    },
  }
  const group = (name: string) =>
    new Proxy(known[name] ?? {}, {
      get: (target, method: string) => target[method] ?? (() => ok(`unfaked:${name}.${method}`, {})),
    })
  const client = new Proxy({}, { get: (_, name: string) => group(name) })
  return { client: client as unknown as PluginInput["client"], stats }
}

/** One plugin instance, as OpenCode creates it for a project directory. */
export async function ralphInstance(
  plugin: PluginModule,
  options: Record<string, unknown>,
  client: PluginInput["client"],
): Promise<Hooks> {
  const directory = mkdtempSync(join(tmpdir(), "ralph-bench-project-"))
  const input = {
    client,
    directory,
    worktree: directory,
    project: { id: "bench" },
    serverUrl: new URL("http://127.0.0.1:1"),
  }
  return plugin.server(input as unknown as PluginInput, options)
}

type CommandHook = NonNullable<Hooks["command.execute.before"]>
type ChatMessageHook = NonNullable<Hooks["chat.message"]>

/** `/ralph task` in `sessionID`, through the real hooks: command.execute.before, then chat.message. */
export async function startLoopViaHooks(hooks: Hooks, sessionID: string, task: string): Promise<void> {
  const parts = [{ type: "text", text: `${task}` }]
  await hooks["command.execute.before"]?.({ command: "ralph", sessionID, arguments: task }, {
    parts,
  } as unknown as Parameters<CommandHook>[1])
  const message = {
    id: `msg_cmd_${sessionID}`,
    sessionID,
    role: "user",
    agent: "build",
    model: { providerID: "mock", modelID: "mock-model" },
    time: { created: 0 },
  }
  await hooks["chat.message"]?.({ sessionID }, { message, parts } as unknown as Parameters<ChatMessageHook>[1])
}

/**
 * Runs `node [flags] script` with HOME, XDG_CONFIG_HOME and TMPDIR in a temp folder (so no real
 * config is read, and what the child writes goes away with it) and parses
 * the JSON the child prints last. The child is ended by its PID if it outlives `timeoutMs`.
 */
export async function runChild<T>(
  script: string,
  flags: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<T> {
  const home = mkdtempSync(join(tmpdir(), "ralph-bench-home-"))
  const child = spawn(process.execPath, [...flags, script, "--child"], {
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      TMPDIR: home,
      ...(QUICK ? { RALPH_BENCH_QUICK: "1" } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  })
  let out = ""
  child.stdout.on("data", (d: Buffer) => (out += d.toString()))
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, "SIGKILL")
  }, timeoutMs)
  const onExit = () => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, "SIGKILL")
  }
  process.once("exit", onExit)
  try {
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)))
    if (timedOut) throw new Error(`${script} did not finish within ${timeoutMs / 1000} s and was ended`)
    if (code !== 0) throw new Error(`${script} exited with ${code}\n${out.slice(-2000)}`)
    const last = out.trim().split("\n").at(-1) ?? ""
    return JSON.parse(last) as T
  } finally {
    clearTimeout(timer)
    process.removeListener("exit", onExit)
    rmSync(home, { recursive: true, force: true })
  }
}

/** True when this module is the script node was started with (a benchmark run as a child). */
export function isChild(moduleUrl: string): boolean {
  return process.argv.includes("--child") && pathToFileURL(process.argv[1] ?? "").href === moduleUrl
}

/**
 * The child's side: when `moduleUrl` is the script node was started with, runs `measure`, prints its
 * result as JSON and exits (timers the plugin left, like the runners' settle timers, would keep the
 * process alive); a failure is printed, naming `name`, and exits 1.
 */
export function runAsChild(moduleUrl: string, name: string, measure: () => Promise<unknown>): void {
  if (!isChild(moduleUrl)) return
  measure().then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`)
      process.exit(0)
    },
    (error: unknown) => {
      process.stderr.write(
        `${name} benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      )
      process.exit(1)
    },
  )
}
