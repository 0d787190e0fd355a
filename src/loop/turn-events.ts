// What OpenCode said about the current turn through events, between the loop's prompt and the idle.
// Only the running process knows it: never written to disk.
import type { OpencodeError } from "../host/error-schema.js"

export interface TurnEvents {
  /** `session.error` payloads, in order. */
  errors: OpencodeError[]
  /** A `retry` status was seen (the provider was being retried). */
  retried: boolean
  /** `session.compacted` was seen, or OpenCode compacted the session on overflow. */
  compacted: boolean
  /** Permission and question requests asked and not yet answered. */
  pending: string[]
}

/** One fact about the turn under way, as the event hook reports it. */
export type TurnEvent =
  | { kind: "error"; error: TurnEvents["errors"][number] }
  | { kind: "retried" }
  | { kind: "compacted" }
  | { kind: "asked"; requestID: string }
  | { kind: "answered"; requestID: string }

export const emptyTurnEvents = (): TurnEvents => ({ errors: [], retried: false, compacted: false, pending: [] })

export function recordTurnEvent(events: TurnEvents, event: TurnEvent): TurnEvents {
  switch (event.kind) {
    case "error":
      return { ...events, errors: [...events.errors, event.error] }
    case "retried":
      return { ...events, retried: true }
    case "compacted":
      return { ...events, compacted: true }
    case "asked":
      return { ...events, pending: [...events.pending, event.requestID] }
    case "answered":
      return { ...events, pending: events.pending.filter((id) => id !== event.requestID) }
  }
}
