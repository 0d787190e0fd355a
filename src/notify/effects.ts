// The effect kind of notifications. Declared into the kernel's `Effects` (src/effects/kernel.ts);
// handled in src/engine/handlers/features.ts.
import type { Notification } from "./notification.js"

declare module "../effects/kernel.js" {
  interface Effects {
    /** A desktop notification and the webhook's POST (notify.*); what failed comes back, for the log. */
    "send-notification": { ask: { notification: Notification }; result: { problems: string[] } }
  }
}
