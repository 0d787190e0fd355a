// The real OpenCode TUI under tmux, isolated as the server harness is (HOME, XDG_*, TMPDIR under a
// temp root; config dirs pre-seeded), talking to the scripted mock model. tmux runs on a socket of
// its own (-S, in a short folder of its own: see socketFolder) with a fixed window size; screens are
// read with `tmux capture-pane -p`. Every wait is on screen text, a file or the model's request log.
// stop() kills that tmux server, waits for OpenCode to exit (by PID) and removes the root and the
// socket's folder.
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import type { Loop } from "../../src/loop/loop.js"
import { packageDir, writeProject, type ProjectOptions } from "./harness.js"
import { savedLoops } from "./loop-files.js"
import { MockModel, type MockRequest, type RequestKind, type Script } from "./mock-model.js"
import { isolatedEnv, opencodeBinary } from "./opencode-server.js"
import { waitUntil } from "./wait.js"

export interface TuiOptions extends ProjectOptions {
  /** List the package's TUI half in the project's tui.json (default true). */
  withTui?: boolean
  /** Options of the TUI half's tui.json entry. */
  tuiOptions?: Record<string, unknown>
  width?: number
  height?: number
  /** More environment for OpenCode. */
  env?: Record<string, string>
}

export interface Tui {
  readonly root: string
  /** The project folder OpenCode runs in. */
  readonly dir: string
  readonly env: NodeJS.ProcessEnv
  readonly mock: MockModel
  /** PID of the opencode process (the pane's). */
  readonly pid: number
  /** The visible screen, one line per row. */
  screen(): string
  /** Resolves with the screen once `pattern` is on it. */
  waitForScreen(pattern: RegExp | string, timeoutMs?: number): Promise<string>
  /** Resolves once `pattern` is no longer on the screen. */
  waitForScreenWithout(pattern: RegExp | string, timeoutMs?: number): Promise<string>
  /** Types `text` literally (no key names). */
  type(text: string): void
  /** Presses tmux key names: "Enter", "Escape", "Down", "C-p" … */
  press(...keys: string[]): void
  requests(kind?: RequestKind): MockRequest[]
  script(script: Script): void
  loops(): Loop[]
  stop(): Promise<void>
}

// tmux servers still up when this process exits (a crashed run) are killed, by their socket, and
// the socket's folder removed.
const live = new Map<string, NodeJS.ProcessEnv>()
process.once("exit", () => {
  for (const [socket, env] of live) {
    spawnSync("tmux", ["-S", socket, "kill-server"], { env, stdio: "ignore" })
    rmSync(dirname(socket), { recursive: true, force: true })
  }
})

/** The longest temp folder the socket's folder is made in; a longer one (TMPDIR) gives way to /tmp. */
const MAX_SOCKET_BASE = 80

/**
 * A folder of its own for the tmux socket, short whatever TMPDIR is: a unix socket's path is cut at
 * 103 bytes on macOS, 107 on Linux, and tmux nested under the test's temp root (TMUX_TMPDIR/tmux-UID/
 * name) passed that with a temp folder a little longer than /tmp ("File name too long").
 */
function socketFolder(): string {
  const base = tmpdir().length <= MAX_SOCKET_BASE ? tmpdir() : "/tmp"
  return mkdtempSync(join(base, "rt-"))
}

const SESSION = "ralph"
const matches = (screen: string, pattern: RegExp | string) =>
  typeof pattern === "string" ? screen.includes(pattern) : pattern.test(screen)
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export async function startTui(name: string, options: TuiOptions = {}): Promise<Tui> {
  const root = mkdtempSync(join(tmpdir(), "ralph-tui-"))
  let socket: string
  try {
    socket = join(socketFolder(), "s")
  } catch (error) {
    rmSync(root, { recursive: true, force: true })
    throw error
  }
  let mock: MockModel | undefined
  let env: NodeJS.ProcessEnv = {}
  let pid = -1
  const tmux = (...args: string[]) => execFileSync("tmux", ["-S", socket, ...args], { env, encoding: "utf8" })
  const cleanup = async () => {
    if (live.has(socket)) {
      spawnSync("tmux", ["-S", socket, "kill-server"], { env, stdio: "ignore" })
      live.delete(socket)
    }
    rmSync(dirname(socket), { recursive: true, force: true })
    if (pid > 0) {
      await waitUntil(() => !alive(pid), `opencode (pid ${pid}) to exit after tmux was killed`, 15_000).catch(() => {
        if (alive(pid)) process.kill(pid, "SIGKILL")
      })
    }
    await mock?.close()
    if (!process.env.RALPH_TEST_KEEP) rmSync(root, { recursive: true, force: true })
  }
  try {
    env = isolatedEnv(root, { TERM: "tmux-256color", COLORTERM: "truecolor", ...options.env })
    mock = await MockModel.start()
    const dir = join(root, "projects", name)
    mkdirSync(dir, { recursive: true })
    if (options.withTui !== false) {
      const entry = options.tuiOptions ? [packageDir(), options.tuiOptions] : packageDir()
      writeFileSync(
        join(dir, "tui.json"),
        JSON.stringify({ $schema: "https://opencode.ai/tui.json", plugin: [entry] }, null, 2),
      )
    }
    writeProject(dir, env, mock, name, options)
    if (options.script) mock.script(name, options.script)
    const conf = join(root, "tmux.conf")
    // No status line (the whole window is OpenCode's); a pane that exits stays, to show why.
    writeFileSync(conf, "set -g status off\nset -g remain-on-exit on\nset -g history-limit 0\n")
    const width = options.width ?? 160
    const height = options.height ?? 48
    tmux(
      "-f",
      conf,
      "new-session",
      "-d",
      "-s",
      SESSION,
      "-x",
      String(width),
      "-y",
      String(height),
      "-c",
      dir,
      opencodeBinary(),
    )
    live.set(socket, env)
    pid = Number(tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").trim())
  } catch (error) {
    await cleanup()
    throw error
  }
  const project = join(root, "projects", name)
  const model = mock
  const screen = () => tmux("capture-pane", "-p", "-t", SESSION)
  const describe = () => `\n--- screen ---\n${screen()}`
  const tui: Tui = {
    root,
    dir: project,
    env,
    mock: model,
    pid,
    screen,
    waitForScreen: (pattern, timeoutMs = 60_000) =>
      waitUntil(
        () => ((s) => matches(s, pattern) && s)(screen()),
        `${String(pattern)} on the screen`,
        timeoutMs,
        describe,
      ),
    waitForScreenWithout: (pattern, timeoutMs = 60_000) =>
      waitUntil(
        () => ((s) => !matches(s, pattern) && s)(screen()),
        `${String(pattern)} gone from the screen`,
        timeoutMs,
        describe,
      ),
    type: (text) => void tmux("send-keys", "-t", SESSION, "-l", text),
    press: (...keys) => void tmux("send-keys", "-t", SESSION, ...keys),
    requests: (kind) => model.requests(name, kind),
    script: (script) => model.script(name, script),
    loops: () => savedLoops(project),
    stop: cleanup,
  }
  return tui
}
