// The setting `notify`: desktop notifications and a webhook when a loop ends, breaks or waits.
import { z } from "zod"

export const NOTIFY_EVENTS = ["ended", "breaker", "waiting"] as const
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number]

export const notifySchema = z
  .strictObject({
    desktop: z
      .boolean()
      .default(true)
      .describe("A desktop notification (notify-send, osascript, a PowerShell toast) where the platform has one."),
    webhook: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .optional()
      .describe(
        "A URL that gets a JSON POST per notification (loop, task, event, reason, iterations, tokens, cost, " +
          "report, text — `text` for Slack).",
      ),
    on: z
      .array(z.enum(NOTIFY_EVENTS))
      .default([...NOTIFY_EVENTS])
      .describe(
        "Which events notify: ended (any reason), breaker (it opened), waiting (a wait of more than a minute).",
      ),
  })
  .describe("Notifications when a loop ends, its circuit breaker opens, or it waits more than a minute.")
export type NotifySettings = z.output<typeof notifySchema>
