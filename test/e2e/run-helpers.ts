// `ralph-loop run` as a user runs it: the built dist/cli/main.js in a process of its own, which
// starts the real `opencode serve` itself — with HOME, XDG and TMPDIR under a temp root, the
// project's opencode.json pointing at the scripted model and listing this package as its plugin
// (as the harness writes it). One scripted model per test file; each test a project of its own.
import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { runEventSchema, type RunEvent } from "../../src/cli/run/events.js"
import { packageDir, writeProject, type ProjectOptions } from "../harness/harness.js"
import { MockModel, type MockRequest, type Reply } from "../harness/mock-model.js"
import { isolatedEnv, opencodeBinary } from "../harness/opencode-server.js"
import { waitUntil } from "../harness/wait.js"

export const CLI = join(packageDir(), "dist", "cli", "main.js")

export interface RunSetup {
  readonly root: string
  readonly env: NodeJS.ProcessEnv
  readonly mock: MockModel
  /** A project with the plugin installed (unless `withPlugin: false`), scripted as `options.script` says. */
  project(name: string, options?: ProjectOptions): string
  requests(name: string, kind?: "main" | "compaction" | "title"): MockRequest[]
}

// Runs still going when a test file ends (a failed test) are ended by PID.
const children = new Set<ChildProcess>()
/** The servers the runs started (their process groups), ended after the file if a run could not. */
const servers = new Set<number>()

/** The PID of the server a run started, from its first line (text or --json). */
export function serverPid(lines: readonly string[]): number | undefined {
  for (const line of lines) {
    const pid = /^OpenCode started on \S+ \(pid (\d+)\)/.exec(line)?.[1] ?? /"type":"host".*"pid":(\d+)/.exec(line)?.[1]
    if (pid) return Number(pid)
  }
  return undefined
}

export function runSetup(): () => RunSetup {
  let setup: RunSetup | undefined
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), "ralph-run-e2e-"))
    const env = isolatedEnv(root)
    const mock = await MockModel.start()
    setup = {
      root,
      env,
      mock,
      project(name, options = {}) {
        const dir = join(root, "projects", name)
        writeProject(dir, env, mock, name, options)
        if (options.script) mock.script(name, options.script)
        return dir
      },
      requests: (name, kind) => mock.requests(name, kind),
    }
  })
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, "SIGKILL")
    for (const pid of servers)
      try {
        process.kill(-pid, "SIGKILL")
      } catch {
        // gone, as it should be
      }
    await setup?.mock.close()
    if (setup && !process.env.RALPH_TEST_KEEP) rmSync(setup.root, { recursive: true, force: true })
  })
  return () => {
    if (!setup) throw new Error("the run setup has not started (use it inside a test)")
    return setup
  }
}

export interface RunProcess {
  readonly child: ChildProcess
  /** What it printed on stdout so far, by line. */
  lines(): string[]
  stderr(): string
  /** Its --json events so far, each checked against the schema. */
  events(): RunEvent[]
  /** Resolves with its exit code once it exited (rejects after `timeoutMs`). */
  exit(timeoutMs?: number): Promise<number | null>
  /** Resolves once a line matching `pattern` was printed. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>
}

/**
 * `ralph-loop run ARGS` in the project, with the harness's opencode binary (or `--attach` to a
 * running server; `opencode: null`: neither, the one on PATH).
 */
export function startRun(
  setup: RunSetup,
  project: string,
  args: string[],
  options: { json?: boolean; env?: Record<string, string>; attach?: string; opencode?: string | null } = {},
): RunProcess {
  const opencode = options.opencode === undefined ? opencodeBinary() : options.opencode
  const host = options.attach ? ["--attach", options.attach] : opencode === null ? [] : ["--opencode", opencode]
  const child = spawn(
    process.execPath,
    [CLI, "run", "--project", project, ...host, ...(options.json ? ["--json"] : []), ...args],
    {
      cwd: project,
      env: { ...setup.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  )
  children.add(child)
  child.once("exit", () => children.delete(child))
  let out = ""
  let err = ""
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk
    const pid = serverPid(out.split("\n").slice(0, 3))
    if (pid) servers.add(pid)
  })
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const lines = () => out.split("\n").filter((line) => line.length > 0)
  const describe = () => `stdout:\n${out.slice(-3000)}\nstderr:\n${err.slice(-3000)}`
  return {
    child,
    lines,
    stderr: () => err,
    events: () => lines().map((line) => runEventSchema.parse(JSON.parse(line))),
    async exit(timeoutMs = 100_000) {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`ralph-loop run did not exit within ${timeoutMs} ms\n${describe()}`)),
          timeoutMs,
        )
      })
      try {
        return await Promise.race([exited, timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    waitForLine: (pattern, timeoutMs = 120_000) =>
      waitUntil(() => lines().find((line) => pattern.test(line)), `a line ${pattern}`, timeoutMs, describe),
  }
}

/** Whether a process of this PID is still there. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Whether any process of this process group is still there (`kill(-pgid, 0)` fails with ESRCH when none is). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false
    throw error
  }
}

/** The process group of a running process, from /proc (Linux). */
export function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ")".
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])
}

/** A run's usage from its lines: each iteration's, and the total its end line gives. */
export function usageOf(lines: readonly string[]): {
  iterations: { tokens: number; cost: number }[]
  total: { tokens: number; cost: number } | undefined
} {
  const parse = (m: RegExpExecArray | null) =>
    m ? { tokens: Number((m[1] as string).replace(/,/g, "")), cost: Number(m[2]) } : undefined
  const iterations = lines
    .map((l) => parse(/^iteration \d+: .* · ([\d,]+) tokens · \$([\d.]+) · /.exec(l)))
    .filter((u) => u !== undefined)
  const end = lines.find((l) => l.startsWith("ended: "))
  return {
    iterations,
    total: end ? parse(/ after \d+ iterations? · ([\d,]+) tokens · \$([\d.]+)/.exec(end)) : undefined,
  }
}

/** A model that works on part one, holds its reply to iteration 2 after the first chunk until `opened` settles, then keeps the promise. */
export function holdingIterationTwo(opened: Promise<unknown>): (r: MockRequest) => Reply {
  return (r) =>
    r.index === 0
      ? { text: "working on part one" }
      : r.index === 1
        ? { text: "holding part two — a long answer", holdAfterFirstChunk: opened }
        : { text: "All finished. <promise>DONE</promise>" }
}
