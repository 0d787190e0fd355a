// Which changes of a loop notify, and what the webhook and the desktop are told.
import { describe, expect, it } from "vitest"
import type { NotifySettings } from "../../src/config/schema.js"
import { desktopCommand } from "../../src/notify/desktop.js"
import { notificationFor } from "../../src/notify/notification.js"
import { loop } from "./fixtures.js"

const NOW = 1_000_000
const report = () => "/p/.opencode/sessions/ses_a/ralph_report.md"
const KEYS = ["cost", "event", "iterations", "loop", "reason", "report", "task", "text", "tokens"]

describe("notifications: which changes notify", () => {
  it("a loop that ended, for any reason: the payload has the contract's keys, the report, and a Slack text", () => {
    const ended = loop(
      {
        phase: "stopped",
        stopReason: "max-iterations",
        iteration: 6,
        detail: "6 iterations",
        usage: { ses_a: { tokens: 1234, cost: 0.123456 } },
      },
      { notify: { desktop: true, on: ["ended"] } },
    )
    const n = notificationFor(ended, "stopped:max-iterations", NOW, report, "https://hooks.example/x")
    expect(Object.keys(n?.payload ?? {}).sort()).toEqual(KEYS)
    expect(n?.payload).toMatchObject({
      loop: "ses_a",
      task: "build it",
      event: "ended",
      reason: "max-iterations",
      iterations: 6,
      tokens: 1234,
      cost: 0.1235,
      report: report(),
    })
    expect(n?.payload.text).toContain(
      'Ralph loop ended (max-iterations): "build it" (6 iterations, 1234 tokens, $0.12)',
    )
    expect(n).toMatchObject({
      title: "Ralph · ended (max-iterations)",
      desktop: true,
      webhook: "https://hooks.example/x",
    })
    for (const reason of ["completed", "cancelled", "session-deleted", "auth-error"] as const)
      expect(
        notificationFor(loop({ phase: "stopped", stopReason: reason }), `stopped:${reason}`, NOW, report)?.payload
          .reason,
      ).toBe(reason)
  })

  it("the breaker opening, with why; not its other changes", () => {
    const open = loop({
      phase: "waiting",
      wait: { reason: "breaker", until: NOW + 1_800_000, then: "next" },
      breaker: { state: "OPEN", noProgress: 3, sameError: 0, reason: "3 iterations without progress" },
    })
    expect(notificationFor(open, "waiting:breaker", NOW, report)?.payload).toMatchObject({
      event: "breaker",
      reason: "3 iterations without progress",
      report: null,
    })
    expect(notificationFor(open, "decided", NOW, report)).toBeUndefined()
  })

  it("a wait of more than a minute (a usage limit until its reset, say); a shorter one is no news", () => {
    const waiting = (ms: number) =>
      loop({ phase: "waiting", wait: { reason: "usage-limit", until: NOW + ms, then: "resume" } })
    const long = notificationFor(waiting(2 * 3_600_000), "waiting:usage-limit", NOW, report)
    expect(long?.payload).toMatchObject({ event: "waiting", reason: "usage-limit", report: null })
    expect(long?.title).toMatch(/^Ralph · waiting \(usage-limit\) until \d\d:\d\d UTC$/)
    expect(notificationFor(waiting(60_000), "waiting:usage-limit", NOW, report)).toBeUndefined()
    expect(notificationFor(waiting(3_000), "waiting:usage-limit", NOW, report)).toBeUndefined()
  })

  it("only the events of notify.on, and nothing when neither the desktop nor a webhook is wanted", () => {
    const ended = (notify: NotifySettings, webhook?: string) =>
      notificationFor(
        loop({ phase: "stopped", stopReason: "completed" }, { notify }),
        "stopped:completed",
        NOW,
        report,
        webhook,
      )
    expect(ended({ desktop: true, on: ["breaker", "waiting"] }, "http://127.0.0.1:9/x")).toBeUndefined()
    expect(ended({ desktop: false, on: ["ended"] })).toBeUndefined()
    expect(ended({ desktop: false, on: ["ended"] }, "http://127.0.0.1:9/x")).toMatchObject({
      desktop: false,
      webhook: "http://127.0.0.1:9/x",
    })
    // The webhook is the one in the settings in force: a loop of an older version that still holds one does not use it.
    expect(ended({ desktop: false, on: ["ended"], webhook: "http://127.0.0.1:9/old" })).toBeUndefined()
    // The defaults: the desktop, every event, no webhook.
    expect(
      notificationFor(loop({ phase: "stopped", stopReason: "completed" }), "stopped:completed", NOW, report),
    ).not.toHaveProperty("webhook")
  })
})

describe("desktop notification commands", () => {
  it("notify-send on Linux, osascript on macOS, a PowerShell toast on Windows, none elsewhere", () => {
    expect(desktopCommand("linux", "Ralph · done", 'it\'s "done"')).toEqual({
      file: "notify-send",
      args: ["Ralph · done", 'it\'s "done"'],
    })
    expect(desktopCommand("darwin", "T", 'say "hi" \\ bye')).toEqual({
      file: "osascript",
      args: ["-e", 'display notification "say \\"hi\\" \\\\ bye" with title "T"'],
    })
    const windows = desktopCommand("win32", "T", "it's")
    expect(windows?.file).toBe("powershell")
    expect(windows?.args.at(-1)).toContain("CreateTextNode('it''s')")
    expect(desktopCommand("aix", "T", "m")).toBeUndefined()
  })
})
