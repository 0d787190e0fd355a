// Every idle of a loop is classified before anything happens. The class decides the policy
// (the table in the README): pause, stop, wait out a usage limit, back off, continue fresh, wait —
// or look for the promise.
import type { OpencodeError } from "../host/error-schema.js"
import type { Turn } from "./turn.js"
import { hasLimitStatus, isUsageLimit } from "./usage-limit.js"
import type { TurnEvents } from "./turn-events.js"

export type TurnClass =
  | { kind: "pending" }
  | { kind: "aborted" }
  | { kind: "auth"; error: OpencodeError }
  | { kind: "overflow"; detail: string }
  | { kind: "usage-limit"; error: OpencodeError }
  /** A provider failing for a moment (timeout, 5xx, OpenCode says a retry may help): back off. */
  | { kind: "transient"; error: OpencodeError }
  | { kind: "failed"; error: OpencodeError }
  | { kind: "finished" }

const OVERFLOW =
  /context[ _-]?(length|window|overflow)|maximum context|too many tokens|prompt is too long|context_length_exceeded/i
const TRANSIENT = /capacity|try again later|temporarily unavailable/i

export function classify(turn: Turn, events: TurnEvents): TurnClass {
  if (events.pending.length > 0) return { kind: "pending" }
  const error = turn.error ?? events.errors.at(-1)
  if (error?.name === "MessageAbortedError" || (turn.interrupted && !error)) return { kind: "aborted" }
  if (error && isAuth(error)) return { kind: "auth", error }
  if (error?.name === "ContextOverflowError" || error?.name === "MessageOutputLengthError")
    return { kind: "overflow", detail: error.message }
  // A limit's status wins over the overflow words ("rate limit of 40,000 input tokens per minute" is a
  // 429); without it the overflow words win ("quota of the context window exceeded" is a full context).
  if (error && isUsageLimit(error) && (hasLimitStatus(error) || !OVERFLOW.test(error.message)))
    return { kind: "usage-limit", error }
  if (error && OVERFLOW.test(error.message)) return { kind: "overflow", detail: error.message }
  if (turn.finish === "length") return { kind: "overflow", detail: "the model's output hit its length limit" }
  if (turn.compacted || events.compacted)
    return { kind: "overflow", detail: "OpenCode compacted the session (context full)" }
  if (error && isTransient(error)) return { kind: "transient", error }
  if (error) return { kind: "failed", error }
  return { kind: "finished" }
}

function isAuth(error: OpencodeError): boolean {
  return error.name === "ProviderAuthError" || error.statusCode === 401 || error.statusCode === 403
}

function isTransient(error: OpencodeError): boolean {
  const status = error.statusCode
  return (
    status === 408 ||
    (status !== undefined && status >= 500) ||
    error.retryable === true ||
    TRANSIENT.test(error.message)
  )
}

/** An error's identity for "the same error again": digits, ids, paths and quotes folded away. */
export function errorFingerprint(error: OpencodeError): string {
  const message = error.message
    .toLowerCase()
    .replace(/(["'`]).*?\1/g, "<q>")
    .replace(/(\/[\w.-]+)+/g, "<path>")
    .replace(/\b[0-9a-f]{8,}\b|\b(ses|msg|prt|call|req|chatcmpl)_\w+/g, "<id>")
    .replace(/\d+(\.\d+)?/g, "<n>")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200)
  return `${error.name}${error.statusCode ? ` ${error.statusCode}` : ""}: ${message}`
}
