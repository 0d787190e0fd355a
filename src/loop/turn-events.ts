// What OpenCode said about the current turn through events, between the loop's prompt and the idle.
// Only the running process knows it: never written to disk.
import type { OpencodeError } from "../opencode/error.js"

export interface TurnEvents {
  /** `session.error` payloads, in order. */
  errors: OpencodeError[]
  /** A `retry` status was seen (the provider was being retried). */
  retried: boolean
  /** `session.compacted` was seen (OpenCode compacted the session during the turn). */
  compacted: boolean
  /** Permission and question requests asked and not yet answered. */
  pending: string[]
}

export const emptyTurnEvents = (): TurnEvents => ({ errors: [], retried: false, compacted: false, pending: [] })
