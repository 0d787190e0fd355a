// What the user hears when they are away: a loop ended (any reason), its circuit breaker opened, or
// it waits more than a minute. The pure rule: which change of a loop notifies, and what is said —
// the webhook's JSON (the contract's keys; `text` is the Slack-compatible field) and the desktop's
// title and line. Sending is an effect (src/notify/notifier.ts).
import type { NotifyEvent } from "../config/schema.js"
import { shorten } from "../loop/prompts.js"
import { totalUsage, type Loop } from "../loop/loop.js"

/** A wait shorter than this is over before anyone could act on a notification. */
const NOTIFY_WAIT_MS = 60_000

/** The webhook's JSON body. */
export interface NotificationPayload {
  loop: string
  task: string
  event: NotifyEvent
  /**
   * ended: the stop reason (`completed`, `cancelled`, …); breaker: why it opened; waiting: the wait's reason
   * (`usage-limit`, …).
   */
  reason: string
  iterations: number
  tokens: number
  cost: number
  /** ended: where ralph_report.md is written; otherwise null. */
  report: string | null
  /** One line for Slack and other chat webhooks. */
  text: string
}

export interface Notification {
  payload: NotificationPayload
  /** The desktop notification's title and line. */
  title: string
  message: string
  desktop: boolean
  webhook?: string
}

/**
 * The notification for `change` (the manager's name for what happened to `loop`), or undefined when
 * it is none of the events the loop's `notify.on` asks for. `report`: where an ended loop's report goes.
 * `webhook`: the one in the settings in force — a loop does not keep it (it is a secret; see redact.ts).
 */
export function notificationFor(
  loop: Loop,
  change: string,
  now: number,
  report: () => string | undefined,
  webhook?: string,
): Notification | undefined {
  const { notify } = loop.settings
  const happened = eventOf(loop, change, now)
  if (!happened || !notify.on.includes(happened.event) || (!notify.desktop && !webhook)) return undefined
  const { event, reason } = happened
  const usage = totalUsage(loop)
  const cost = Math.round(usage.cost * 10_000) / 10_000
  const headline = HEADLINES[event](reason, loop)
  const numbers =
    `${loop.iteration} iteration${loop.iteration === 1 ? "" : "s"}, ${usage.tokens} tokens, $` + `${cost.toFixed(2)}`
  const reportPath = event === "ended" ? (report() ?? null) : null
  return {
    payload: {
      loop: loop.id,
      task: loop.task,
      event,
      reason,
      iterations: loop.iteration,
      tokens: usage.tokens,
      cost,
      report: reportPath,
      text:
        `Ralph loop ${headline}: "${shorten(loop.task, 120)}" (${numbers})` +
        `${loop.detail ? ` — ${shorten(loop.detail, 200)}` : ""}${reportPath ? `. Report: ${reportPath}` : ""}`,
    },
    title: `Ralph · ${headline}`,
    message: `${shorten(loop.task, 80)} (${numbers})`,
    desktop: notify.desktop,
    ...(webhook ? { webhook } : {}),
  }
}

function eventOf(loop: Loop, change: string, now: number): { event: NotifyEvent; reason: string } | undefined {
  if (change.startsWith("stopped:"))
    return { event: "ended", reason: loop.stopReason ?? change.slice("stopped:".length) }
  if (!change.startsWith("waiting:") || !loop.wait) return undefined
  if (loop.wait.reason === "breaker") return { event: "breaker", reason: loop.breaker.reason ?? "no progress" }
  return loop.wait.until - now > NOTIFY_WAIT_MS ? { event: "waiting", reason: loop.wait.reason } : undefined
}

const clock = (at: number) => new Date(at).toISOString().slice(11, 16)

const HEADLINES: Record<NotifyEvent, (reason: string, loop: Loop) => string> = {
  ended: (reason) => `ended (${reason})`,
  breaker: () => "circuit breaker opened",
  waiting: (reason, loop) => `waiting (${reason}) until ${loop.wait ? `${clock(loop.wait.until)} UTC` : "later"}`,
}
