// The webhook's URL is a secret (Slack's carries the hook's token in its path): a loop started with
// one in the settings keeps it out of its log lines, its state file and the journal — and the
// notification still goes to it, read from the settings in force. Also after a loop of an older
// version, which held the webhook, is written again.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { LoopRunner, type JobHost } from "../../src/engine/runner.js"
import { startLoop } from "../../src/engine/start-loop.js"
import type { Job } from "../../src/engine/effects.js"
import type { LiveSettings } from "../../src/config/live-settings.js"
import { DEFAULT_SETTINGS, type Settings } from "../../src/config/schema.js"
import type { RalphContext } from "../../src/engine/context.js"
import { ContinuationWatch } from "../../src/continuations/watch.js"
import { LoopManager } from "../../src/loop/manager.js"
import type { Notification } from "../../src/notify/notification.js"
import type { OpencodeApi } from "../../src/opencode/api.js"
import { PlanRequests } from "../../src/plan/requests.js"
import { STATE_DIR } from "../../src/project/own-files.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { loop } from "./fixtures.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const TOKEN = "XoXbT0kEn5eCr3t"
const WEBHOOK = `https://hooks.slack.com/services/T0001/B0002/${TOKEN}`

/** Every file the plugin wrote under the project's .opencode/ralph-loop/, as one text. */
function stateFiles(directory: string): string {
  const dir = join(directory, STATE_DIR)
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
    .join("\n")
}

/** The pieces startLoop and the runner use, with the store of a temp project; log lines and notifications recorded. */
function instance(current: Settings) {
  const directory = tempDir("ralph-secrets-")
  const store = new LoopStore(directory)
  const logs: unknown[][] = []
  const notifications: Notification[] = []
  const host: JobHost = {
    // The notification's job: its first effect is the send, which is all this test looks at.
    start: (_label, job: Job) => {
      const first = job.next()
      const effect = first.done ? undefined : first.value
      if (effect && "kind" in effect && effect.kind === "send-notification") notifications.push(effect.notification)
    },
    startAfter: () => undefined,
    runNow: () => Promise.resolve(),
    persisted: () => Promise.resolve(),
    reached: () => undefined,
    cancelTimer: () => undefined,
    dispose: () => undefined,
  }
  const manager = new LoopManager((changed, event) => {
    void store.save(changed, event, 1)
    runner.loopChanged(changed, event)
  })
  const runner = new LoopRunner(host, {
    directory,
    manager,
    plans: new PlanRequests(),
    continuations: new ContinuationWatch(),
    now: () => 1,
    settings: () => current,
  })
  const api = {
    log: (...args: unknown[]) => logs.push(args),
    toast: (...args: unknown[]) => logs.push(args),
  } as unknown as OpencodeApi
  const settings = { current, explicit: new Set(["notify"]), reload: () => current } as unknown as LiveSettings
  const ctx = { directory, api, manager, runner, settings, now: () => 1 } as unknown as RalphContext
  return { directory, store, ctx, manager, logs, notifications }
}

describe("the webhook URL is a secret", () => {
  it("not in the start's log line, the state file or the journal; the ended loop's notification still goes to it", async () => {
    const { directory, store, ctx, manager, logs, notifications } = instance({
      ...DEFAULT_SETTINGS,
      notify: { desktop: false, on: ["ended"], webhook: WEBHOOK },
    })
    const started = await startLoop(ctx, "ses_secret0000000000000000001", "build it")
    manager.stop(started, "cancelled")
    await store.settled(started.id)

    const logged = JSON.stringify(logs)
    const files = stateFiles(directory)
    expect(logged).toContain("loop started")
    expect(files).toContain('"event":"stopped:cancelled"')
    expect(logged).not.toContain(TOKEN)
    expect(files).not.toContain(TOKEN)
    expect(files).not.toContain("hooks.slack.com")
    // The start's line says which webhook, by its origin.
    expect(logged).toContain("https://hooks.slack.com/…")
    expect(notifications.map((n) => [n.payload.event, n.webhook])).toEqual([["ended", WEBHOOK]])
  })

  it("a loop of an older version that held the webhook: written again without it", async () => {
    const { directory, store } = instance(DEFAULT_SETTINGS)
    const old = loop({ phase: "running" }, { notify: { desktop: true, on: ["ended"], webhook: WEBHOOK } })
    await store.save(old, "decided", 1)
    const files = stateFiles(directory)
    expect(files).toContain('"event":"decided"')
    expect(files).not.toContain(TOKEN)
    const { loops } = await new LoopStore(directory).load(2)
    expect(loops.map((l) => l.settings.notify)).toEqual([{ desktop: true, on: ["ended"] }])
  })
})
