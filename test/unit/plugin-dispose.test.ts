// The plugin's entry (src/plugin.ts) loads its machinery a second after OpenCode starts it, or when a
// hook first has work. Once OpenCode disposes the instance, nothing of it may run: no load later, no
// hook reaching the machinery. The machinery (instance.js) is replaced by a spy here; the clock is fake.
import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { server } from "../../src/plugin.js"
import { tempDirs } from "../temp-dirs.js"

const machinery = vi.hoisted(() => {
  const instance = { dispose: vi.fn(async () => undefined), chatMessage: vi.fn(async () => undefined) }
  /** The signal createInstance was given, and a hold on its answer (released by `release`). */
  const state: { signal?: AbortSignal | undefined; release?: (() => void) | undefined; held: boolean } = { held: false }
  const createInstance = vi.fn(async (_input: unknown, _options: unknown, signal?: AbortSignal) => {
    state.signal = signal
    if (state.held) await new Promise<void>((resolve) => (state.release = resolve))
    return { dispose: instance.dispose, "chat.message": instance.chatMessage }
  })
  return { instance, state, createInstance }
})
vi.mock("../../src/instance.js", () => ({ createInstance: machinery.createInstance }))

const tempDir = tempDirs()

function input(): PluginInput {
  const client = { app: { log: async () => ({}) } }
  return { directory: tempDir("ralph-plugin-dispose-"), client } as unknown as PluginInput
}

const chatMessage = (hooks: Hooks) =>
  hooks["chat.message"]?.({ sessionID: "ses_a" }, { message: {}, parts: [] } as unknown as Parameters<
    NonNullable<Hooks["chat.message"]>
  >[1])

beforeEach(() => {
  vi.useFakeTimers()
  // The global settings are looked for under XDG_CONFIG_HOME: a folder of the test's own.
  vi.stubEnv("XDG_CONFIG_HOME", tempDir("ralph-plugin-dispose-xdg-"))
  vi.stubEnv("RALPH_LOOP_DISABLE", "")
  machinery.state.held = false
  machinery.state.signal = undefined
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllEnvs()
  vi.clearAllMocks()
})

describe("the plugin's lazy load and dispose", () => {
  it("left alone, the machinery loads a second after the start", async () => {
    const hooks = await server(input())
    expect(machinery.createInstance).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1_000)
    await chatMessage(hooks) // resolves once the load has finished
    expect(machinery.createInstance).toHaveBeenCalledTimes(1)
    expect(machinery.instance.chatMessage).toHaveBeenCalledTimes(1)
  })

  it("disposed within its first second: no timer is left, and neither the clock nor a hook loads it", async () => {
    const hooks = await server(input())
    expect(vi.getTimerCount()).toBe(1) // the lazy load
    await hooks.dispose?.()
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(5_000)
    await chatMessage(hooks)
    await hooks.event?.({ event: { type: "session.idle", properties: { sessionID: "ses_a" } } })
    expect(machinery.createInstance).not.toHaveBeenCalled()
  })

  it("disposed while it loads: the machinery is told, disposed once it is there, and no hook reaches it", async () => {
    machinery.state.held = true
    const hooks = await server(input())
    const firstHook = chatMessage(hooks) // starts the load
    await vi.waitFor(() => expect(machinery.createInstance).toHaveBeenCalledTimes(1))
    const disposed = hooks.dispose?.()
    expect(machinery.state.signal?.aborted).toBe(true)
    machinery.state.release?.()
    await disposed
    await firstHook
    await chatMessage(hooks)
    expect(machinery.instance.dispose).toHaveBeenCalledTimes(1)
    expect(machinery.instance.chatMessage).not.toHaveBeenCalled()
  })
})
