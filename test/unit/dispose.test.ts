// When OpenCode disposes a plugin instance, nothing of it may run on: an instance disposed while it
// loaded starts nothing, jobs stop at their next effect, and the checks running now are killed with
// their whole process group (a check's children included).
import type { PluginInput } from "@opencode-ai/plugin"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createInstance } from "../../src/instance.js"
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
})
