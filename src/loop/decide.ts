// The pure rule for one ended turn of a live loop: what to do next.
import { keptPromise } from "./completion.js"
import type { Loop } from "./loop.js"
import type { Turn } from "./turn.js"

export type Decision =
  | { type: "complete" }
  | { type: "restart" }
  | { type: "retries-exhausted" }
  /** autoRestart off: say the promise is missing, keep watching, send nothing. */
  | { type: "report-missing-promise" }
  | { type: "pause"; reason: string }
  | { type: "ignore"; reason: string }

export function decide(loop: Loop, turn: Turn): Decision {
  if (turn.lastAssistantID !== undefined && turn.lastAssistantID === loop.lastDecidedMessageID)
    return { type: "ignore", reason: "turn already decided" }
  if (keptPromise(turn.texts, loop.settings.promiseWord)) return { type: "complete" }
  if (turn.error?.name === "MessageAbortedError") return { type: "pause", reason: "you interrupted the model (Esc)" }
  if (!loop.settings.autoRestart) return { type: "report-missing-promise" }
  if (loop.retries >= loop.settings.maxRetries) return { type: "retries-exhausted" }
  return { type: "restart" }
}
