// Sends a notification: the desktop command of the platform (found on PATH; none there, nothing
// and no error) and the webhook's JSON POST (5 s per attempt, 3 retries). Never throws: what
// failed is returned for the log. It never holds up the loop — it runs as a job of its own.
import { spawn } from "node:child_process"
import { desktopCommand } from "./desktop.js"
import type { Notification } from "./notification.js"
import { redactUrl, redactUrls } from "../files/redact.js"

/** Each attempt's time, the retries after the first, and the first retry's delay (doubling). */
export interface WebhookPolicy {
  timeoutMs: number
  retries: number
  retryDelayMs: number
}

export const WEBHOOK_POLICY: WebhookPolicy = { timeoutMs: 5_000, retries: 3, retryDelayMs: 500 }
const DESKTOP_TIMEOUT_MS = 10_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What failed, one line each (empty: all went out). */
export async function sendNotification(notification: Notification): Promise<string[]> {
  // Out of the moment that asked for it (a hook's event, a decision): a process start takes a while.
  await sleep(0)
  const sent = await Promise.all([
    notification.desktop ? showOnDesktop(notification) : undefined,
    notification.webhook ? post(notification.webhook, notification.payload) : undefined,
  ])
  return sent.filter((problem): problem is string => problem !== undefined)
}

/** The platform's desktop notification; undefined when it was shown, or when the platform has none. */
export function showOnDesktop(
  { title, message }: Pick<Notification, "title" | "message">,
  platform = process.platform,
): Promise<string | undefined> {
  const command = desktopCommand(platform, title, message)
  if (!command) return Promise.resolve(undefined)
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(command.file, command.args, { stdio: "ignore", windowsHide: true })
    } catch (error) {
      return resolve(`the desktop notification (${command.file}) could not start: ${String(error)}`)
    }
    const timer = setTimeout(() => child.kill(), DESKTOP_TIMEOUT_MS)
    timer.unref?.()
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      // No such command on this machine: no desktop notification, and nothing to report.
      resolve(
        error.code === "ENOENT" ? undefined : `the desktop notification (${command.file}) failed: ${error.message}`,
      )
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      resolve(
        code === 0
          ? undefined
          : `the desktop notification (${command.file}) ended with ${signal ?? `exit code ${code}`}`,
      )
    })
  })
}

/** POSTs `payload` as JSON; undefined when it was taken (2xx), else what went wrong the last time. */
export async function post(
  url: string,
  payload: unknown,
  policy: WebhookPolicy = WEBHOOK_POLICY,
): Promise<string | undefined> {
  let problem = ""
  for (let attempt = 0; attempt <= policy.retries; attempt += 1) {
    if (attempt > 0) await sleep(policy.retryDelayMs * 2 ** (attempt - 1))
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(policy.timeoutMs),
      })
      await response.body?.cancel().catch(() => undefined)
      if (response.ok) return undefined
      problem = `HTTP ${response.status}`
      // A refusal (a wrong URL, a revoked hook) will not change by asking again.
      if (response.status < 500 && response.status !== 408 && response.status !== 429) break
    } catch (error) {
      // An error can name the URL (Node's fetch does, for one with credentials).
      problem = redactUrls(
        (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split(url).join(redactUrl(url)),
      )
    }
  }
  // The URL itself can be a secret (Slack's hooks are): only its origin is logged.
  return `the webhook ${redactUrl(url)} failed: ${problem}`
}
