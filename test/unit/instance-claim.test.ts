// One copy of the plugin acts per OpenCode instance (issue 37): the registry on globalThis, and the
// server entry and the TUI half called twice for one directory, as OpenCode calls them when the
// package is listed twice. The machinery (instance.js) is replaced by a spy; the clock is fake.
import type { PluginInput } from "@opencode-ai/plugin"
import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { claimInstance, deferredText } from "../../src/host/instance-claim.js"
import { server } from "../../src/plugin.js"
import { tui } from "../../src/tui/plugin.js"
import { tempDirs } from "../temp-dirs.js"

const machinery = vi.hoisted(() => ({ createInstance: vi.fn(async () => ({ dispose: async () => undefined })) }))
vi.mock("../../src/instance.js", () => ({ createInstance: machinery.createInstance }))

const tempDir = tempDirs()

beforeEach(() => {
  vi.useFakeTimers()
  vi.stubEnv("XDG_CONFIG_HOME", tempDir("ralph-claim-xdg-"))
  vi.stubEnv("RALPH_LOOP_DISABLE", "")
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllEnvs()
  vi.clearAllMocks()
})

describe("the registry", () => {
  it("the first claim of a directory wins until released; halves and directories are apart; a late release leaves a newer claim", () => {
    const dir = tempDir("ralph-claim-")
    const first = claimInstance("server", dir, "file:///a/dist/plugin.js")
    expect(first.owner).toBe(true)
    // Another copy, or the same module called again for the same live instance: refused.
    expect(claimInstance("server", dir, "file:///b/dist/plugin.js")).toEqual({
      owner: false,
      holder: "file:///a/dist/plugin.js",
    })
    expect(claimInstance("server", dir, "file:///a/dist/plugin.js").owner).toBe(false)
    // The TUI half and another directory (a worktree loop's instance) are claims of their own.
    const tuiClaim = claimInstance("tui", dir, "file:///b/dist/tui/plugin.js")
    const worktree = claimInstance("server", `${dir}/wt`, "file:///b/dist/plugin.js")
    expect([tuiClaim.owner, worktree.owner]).toEqual([true, true])

    if (!first.owner) throw new Error("unreachable")
    first.release()
    const recreated = claimInstance("server", dir, "file:///b/dist/plugin.js")
    expect(recreated.owner).toBe(true)
    first.release() // the old instance's second release: the re-created one keeps its claim
    expect(claimInstance("server", dir, "file:///a/dist/plugin.js").owner).toBe(false)
    for (const claim of [recreated, tuiClaim, worktree]) if (claim.owner) claim.release()
  })

  it("the log line names the directory, the copy that runs and this one", () => {
    expect(deferredText("server", "/p", "file:///a/dist/plugin.js", "file:///b/dist/plugin.js")).toBe(
      "ralph-loop is listed more than once for /p: the copy loaded from file:///a/dist/plugin.js runs here, this one " +
        "(file:///b/dist/plugin.js) stays out (no second loop engine, control channel, tools and commands). `ralph-loop doctor` shows the listings.",
    )
  })
})

function serverInput(directory: string, log: (entry: unknown) => void): PluginInput {
  const logEntry = async (entry: unknown) => {
    log(entry)
    return {}
  }
  return { directory, client: { app: { log: logEntry } } } as unknown as PluginInput
}

describe("the server entry called twice for one instance", () => {
  it("the second call returns no hooks and logs once; once the first is disposed, the instance re-created gets a working copy", async () => {
    const dir = tempDir("ralph-claim-server-")
    const logged: unknown[] = []
    const first = await server(serverInput(dir, (e) => logged.push(e)))
    const second = await server(serverInput(dir, (e) => logged.push(e)))
    expect(Object.keys(first)).toContain("chat.message")
    expect(second).toEqual({})
    const message = expect.stringContaining(`ralph-loop is listed more than once for ${dir}:`)
    expect(logged).toEqual([{ body: { service: "ralph-loop", level: "warn", message } }])
    await vi.advanceTimersByTimeAsync(1_000)
    expect(machinery.createInstance).toHaveBeenCalledTimes(1) // one engine

    await first.dispose?.()
    const recreated = await server(serverInput(dir, (e) => logged.push(e)))
    expect(Object.keys(recreated)).toContain("chat.message")
    expect(logged).toHaveLength(1)
    await recreated.dispose?.()
  })
})

/** A TUI api that records what the half registers; its dispose runs the half's onDispose callbacks. */
function fakeTui(directory: string) {
  const registered: string[] = []
  const logged: unknown[] = []
  const disposers: Array<() => void> = []
  const api = {
    state: { path: { directory } },
    route: { current: { name: "home" }, register: () => registered.push("route") },
    lifecycle: { onDispose: (fn: () => void) => void disposers.push(fn) },
    keymap: { registerLayer: () => registered.push("commands") },
    slots: { register: () => registered.push("sidebar") },
    client: {
      app: {
        log: async (entry: unknown) => {
          logged.push(entry)
          return {}
        },
      },
    },
    ui: {},
  } as unknown as TuiPluginApi
  return {
    api,
    registered,
    logged,
    dispose: () => {
      for (const fn of disposers.splice(0)) fn()
    },
  }
}

describe("the TUI half called twice for one directory", () => {
  it("the second registers no commands, no sidebar and no view, and logs once; after the first is disposed a new one registers", async () => {
    vi.useRealTimers()
    const dir = tempDir("ralph-claim-tui-")
    const first = fakeTui(dir)
    const second = fakeTui(dir)
    await tui(first.api, undefined, undefined as never)
    await tui(second.api, undefined, undefined as never)
    expect(first.registered).toEqual(expect.arrayContaining(["commands", "sidebar"]))
    expect(second.registered).toEqual([])
    await vi.waitFor(() => expect(second.logged).toHaveLength(1))
    const message = expect.stringContaining("TUI commands and sidebar")
    expect(second.logged[0]).toEqual({ service: "ralph-loop", level: "warn", message })

    first.dispose()
    const third = fakeTui(dir)
    await tui(third.api, undefined, undefined as never)
    expect(third.registered).toEqual(expect.arrayContaining(["commands", "sidebar"]))
    third.dispose()
  })
})
