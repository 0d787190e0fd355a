// When OpenCode disposes a plugin instance, nothing of it may run on: an instance disposed while it
// loaded starts nothing, jobs stop at their next effect, and the checks running now are killed with
// their whole process group (a check's children included).
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { PluginInput } from "@opencode-ai/plugin"
import { afterEach, describe, expect, it, vi } from "vitest"
import { Interpreter } from "../../src/engine/interpreter.js"
import type { Job } from "../../src/engine/effects.js"
import type { OpencodeApi } from "../../src/opencode/api.js"
import { createInstance } from "../../src/instance.js"
import { waitUntil } from "../harness/wait.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// Processes a failing run would leave behind are ended by PID.
const started: number[] = []
afterEach(() => {
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL")
  vi.unstubAllEnvs()
})

describe("disposing a plugin instance", () => {
  it("disposed while it loaded: no hooks, nothing started", async () => {
    vi.stubEnv("XDG_CONFIG_HOME", tempDir("ralph-dispose-xdg-"))
    const calls: string[] = []
    const call = (path: string): unknown =>
      new Proxy(() => undefined, {
        get: (_target, key) => call(`${path}.${String(key)}`),
        apply: () => {
          calls.push(path)
          return Promise.resolve({ data: undefined, error: "not here", response: new Response(null, { status: 500 }) })
        },
      })
    const input = { directory: tempDir("ralph-dispose-"), client: call("client") } as unknown as PluginInput
    const disposed = new AbortController()
    disposed.abort()
    const hooks = await createInstance(input, undefined, disposed.signal)
    expect(Object.keys(hooks)).toEqual([])
    expect(calls).toEqual([])
  })

  it("stops the running jobs and kills the checks' process groups; the next check does not start", async () => {
    const directory = tempDir("ralph-dispose-checks-")
    const toasts: string[] = []
    const api = {
      toast: (_variant: string, title: string) => void toasts.push(title),
      log: () => undefined,
    } as unknown as OpencodeApi
    const interpreter = new Interpreter({
      directory,
      api,
      store: {} as never,
      memory: {} as never,
      onWake: () => undefined,
    })
    const checks = [
      // The long check's own child: it must go with the group, not only the shell.
      { name: "long", kind: "test" as const, command: "sleep 600 & echo $! > sleep.pid; wait" },
      { name: "next", kind: "test" as const, command: "touch next-ran" },
    ]
    const job = (function* (): Job {
      yield { kind: "auto-checks", sessionID: "ses_a", checks }
      yield { kind: "toast", notice: { variant: "info", title: "after the checks", message: "" } }
    })()
    const ended = interpreter.runNow("checks", job)
    const pidFile = join(directory, "sleep.pid")
    const pid = await waitUntil(
      () => existsSync(pidFile) && Number(readFileSync(pidFile, "utf8").trim()),
      "the check's sleep to start",
    )
    started.push(pid)
    expect(alive(pid)).toBe(true)

    interpreter.dispose()
    await waitUntil(() => !alive(pid), `the check's child ${pid} to be gone`, 10_000)
    await ended
    expect(existsSync(join(directory, "next-ran"))).toBe(false)
    expect(toasts).toEqual([])
  })
})
