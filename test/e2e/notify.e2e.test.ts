// Notifications in the real OpenCode: a webhook on 127.0.0.1 gets one JSON payload per ended loop,
// with its reason; a failing webhook leaves the loop alone; the desktop notification goes to the
// `notify-send` found on PATH — here a stub that records what it was given.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitUntil } from "../harness/wait.js"
import { Hook } from "../harness/webhook.js"
import type { MockRequest } from "../harness/mock-model.js"
import { sharedHarness, waitForFile, waitForLoopEnd, waitForToast } from "./helpers.js"

// The recording notify-send, first on the OpenCode server's PATH: one line per call, its arguments tab-separated.
const stubDir = mkdtempSync(join(tmpdir(), "ralph-notify-stub-"))
const desktopLog = join(stubDir, "notify-send.log")
writeFileSync(join(stubDir, "notify-send"), `#!/bin/sh\nprintf '%s\\t%s\\n' "$1" "$2" >> "${desktopLog}"\n`)
chmodSync(join(stubDir, "notify-send"), 0o755)
afterAll(() => rmSync(stubDir, { recursive: true, force: true }))

const harness = sharedHarness({ env: { PATH: `${stubDir}:${process.env.PATH ?? ""}` } })

let hook: Hook
beforeAll(async () => {
  hook = await Hook.start()
})
afterAll(() => hook.close())

/** The desktop notifications the stub recorded whose line names `task`. */
const desktopCalls = (task: string) =>
  existsSync(desktopLog)
    ? readFileSync(desktopLog, "utf8")
        .split("\n")
        .filter((line) => line.includes(task))
    : []
/** A line of the server's log (the plugin logs through client.app.log). */
const logLine = (pattern: RegExp) =>
  waitUntil(
    () =>
      harness()
        .server.output()
        .split("\n")
        .find((line) => pattern.test(line)),
    `a log line ${pattern}`,
    30_000,
    () => harness().server.output().slice(-1_500),
  )
/** Every file under `dir`, with its text. */
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => ({
      file: join(entry.parentPath, entry.name),
      text: readFileSync(join(entry.parentPath, entry.name), "utf8"),
    }))
const waitForDesktop = (task: string, count: number) =>
  waitUntil(
    () => desktopCalls(task).length >= count && desktopCalls(task),
    `${count} desktop notifications for ${task}`,
  )

describe("notifications", () => {
  it("one webhook payload per ended loop, with its reason, and a desktop notification through notify-send; the URL's secret in no file or log line", async () => {
    // As a Slack hook: the token is the path's end.
    const token = "XoXbT0kEn5eCr3t"
    const ENDED = `/ended/T0001/B0002/${token}`
    const project = await harness().project("notify-ended", {
      pluginOptions: { strategy: "continue", notify: { webhook: hook.url(ENDED) } },
      script: { main: [{ text: "working" }, { text: "<promise>DONE</promise>" }, { text: "not done yet" }] },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "the first notified task")
    const [done] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const [payload] = await hook.waitFor(ENDED, 1)
    expect(Object.keys(payload ?? {}).sort()).toEqual([
      "cost",
      "event",
      "iterations",
      "loop",
      "reason",
      "report",
      "task",
      "text",
      "tokens",
    ])
    expect(payload).toMatchObject({
      loop: done?.id,
      task: "the first notified task",
      event: "ended",
      reason: "completed",
      iterations: 2,
    })
    expect(payload?.tokens).toBeGreaterThan(0)
    expect(typeof payload?.cost).toBe("number")
    expect(payload?.text).toMatch(/^Ralph loop ended \(completed\): "the first notified task" \(2 iterations/)
    expect(await waitForFile(String(payload?.report))).toContain("# Ralph report")

    // A second loop ends otherwise (its one turn without the promise, no retry allowed): its own payload, and still one for the first.
    const second = await project.newSession()
    await project.command(second, "ralph", "the second notified task --max-retries 0")
    await waitForToast(project, /^Ralph · retry limit reached/)
    const both = await hook.waitFor(ENDED, 2)
    expect(both.map((p) => [p.task, p.event, p.reason])).toEqual([
      ["the first notified task", "ended", "completed"],
      ["the second notified task", "ended", "retries-exhausted"],
    ])

    const [desktop] = await waitForDesktop("the first notified task", 1)
    expect(desktop).toMatch(/^Ralph · ended \(completed\)\tthe first notified task \(2 iterations/)
    expect(await waitForDesktop("the second notified task", 1)).toEqual([
      expect.stringMatching(/^Ralph · ended \(retries-exhausted\)\t/),
    ])
    expect(desktopCalls("the first notified task")).toHaveLength(1)
    expect(hook.at(ENDED)).toHaveLength(2)

    // The plugin's files and log lines hold no webhook secret: the start's line names the webhook by its origin.
    const started = await logLine(/message="loop started"/)
    const own = filesUnder(join(project.dir, ".opencode", "ralph-loop"))
    expect(own.map((f) => f.file)).toEqual(
      expect.arrayContaining([expect.stringMatching(/journal\.jsonl$/), expect.stringMatching(/loops\/.+\.json$/)]),
    )
    expect(own.filter((f) => f.text.includes(token)).map((f) => f.file)).toEqual([])
    expect(
      harness()
        .server.output()
        .split("\n")
        .filter((line) => line.includes(token)),
    ).toEqual([])
    expect(started).toMatch(/ webhook=http:\/\/127\.0\.0\.1:\d+\/…/)
  })

  it("a webhook that answers 500 is tried 1 + 3 times, and the loop is unaffected", async () => {
    hook.failing.add("/broken")
    const project = await harness().project("notify-500", {
      pluginOptions: { strategy: "continue", notify: { webhook: hook.url("/broken") } },
      script: { main: [{ text: "working" }, { text: "<promise>DONE</promise>" }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task with a broken webhook")
    const done = await waitForToast(project, /^Ralph · done/)
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(done.properties.message).toContain("finished in 2 iterations")
    expect(loop).toMatchObject({ iteration: 2, retries: 1 })
    expect(project.requests("main")).toHaveLength(2)
    const attempts = await hook.waitFor("/broken", 4)
    expect(attempts.map((p) => p.reason)).toEqual(["completed", "completed", "completed", "completed"])
    // The failure is logged, with the webhook's origin only (a hook's path can be its secret).
    const line = await logLine(/notification not delivered: the webhook http:\/\/127\.0\.0\.1:\d+\/… failed: HTTP 500/)
    expect(line).not.toContain("/broken")
    // The desktop notification went out all the same.
    await waitForDesktop("a task with a broken webhook", 1)
  })

  it("a webhook on a closed port: the loop is unaffected and the desktop notification still goes out", async () => {
    const closed = await Hook.start()
    const url = closed.url("/gone")
    await closed.close()
    const project = await harness().project("notify-closed", {
      pluginOptions: { strategy: "continue", notify: { webhook: url } },
      script: { main: [{ text: "<promise>DONE</promise>" }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task whose webhook is gone")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(loop).toMatchObject({ iteration: 1, retries: 0 })
    await waitForDesktop("a task whose webhook is gone", 1)
    await logLine(
      new RegExp(
        `notification not delivered: the webhook ${url.replace("/gone", "").replace(/[.]/g, "\\.")}/… failed: `,
      ),
    )
  })

  it("the breaker opening is notified with why, and the cancel that ends the loop after it", async () => {
    const project = await harness().project("notify-breaker", {
      pluginOptions: {
        strategy: "continue",
        sameErrorThreshold: 2,
        cooldownMinutes: 30,
        notify: { webhook: hook.url("/breaker") },
      },
      script: {
        main: (r: MockRequest) =>
          r.lastUser.startsWith("[ralph-loop control]")
            ? { text: "ok" }
            : { error: { status: 400, message: `Invalid request: tool schema rejected (req_${r.index}abc)` } },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task that trips the breaker")
    await waitForLoopEnd(project, { phase: "waiting", wait: "breaker" })
    const [open] = await hook.waitFor("/breaker", 1)
    expect(open).toMatchObject({ event: "breaker", iterations: 2, report: null })
    expect(open?.reason).toMatch(/^2 iterations in a row ended in the same error: APIError 400/)
    await project.command(session, "cancel-ralph", "")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "cancelled" })
    const [, ended] = await hook.waitFor("/breaker", 2)
    expect(ended).toMatchObject({ event: "ended", reason: "cancelled", task: "a task that trips the breaker" })
    expect(await waitForDesktop("a task that trips the breaker", 2)).toEqual([
      expect.stringMatching(/^Ralph · circuit breaker opened\t/),
      expect.stringMatching(/^Ralph · ended \(cancelled\)\t/),
    ])
  })
})
