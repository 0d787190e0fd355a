// A loop ended, its breaker opened, or it waits long: the user is told where they are (notify.*).
// A job of its own, so nothing of the loop waits for a desktop or a webhook.
import type { Notification } from "./notification.js"
import { io, log, type Job } from "../engine/effects.js"

export function* announce(notification: Notification): Job {
  const { problems } = yield* io({ kind: "send-notification", notification })
  for (const problem of problems)
    yield* log("warn", `notification not delivered: ${problem}`, {
      loop: notification.payload.loop,
      event: notification.payload.event,
    })
}
