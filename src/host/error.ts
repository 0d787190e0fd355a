// The one shape of an error OpenCode reports — on an assistant message, in a `session.error` event,
// or as the answer to a failed SDK call — and the one place it is read from what the server sent.
// The SDK's error union (`ApiError`, `ProviderAuthError`, `ContextOverflowError`, …) all carry a
// `name` and `data`; a server newer than the pinned SDK may send names and fields the union lacks,
// so every field is checked, never trusted. No zod here: the entry's event filter imports this while
// OpenCode boots (the schema, for the loop's saved turns, is in error-schema.ts).
import type { ApiError } from "@opencode-ai/sdk/v2"
import type { OpencodeError } from "./error-schema.js"

/** The fields of the SDK's richest error (`ApiError`) the loop reads, each possibly absent or of another type. */
type ReportedData = { [K in keyof ApiError["data"]]?: unknown }

/** How much of a response body is kept (it is saved with the loop's last turn). */
const BODY_CHARS = 2_000

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** True for an error as OpenCode reports one: `{ name, data: { message } }`. */
export const isReportedError = (value: unknown): boolean =>
  isObject(value) && isObject(value.data) && typeof value.data.message === "string"

export function parseError(error: unknown): OpencodeError {
  const reported = isObject(error) ? error : {}
  const data: ReportedData = isObject(reported.data) ? reported.data : {}
  const known = typeof reported.name === "string" ? reported.name : undefined
  const parsed: OpencodeError = {
    name: known ?? "UnknownError",
    message: typeof data.message === "string" ? data.message : (known ?? "unknown error"),
  }
  if (typeof data.statusCode === "number") parsed.statusCode = data.statusCode
  if (typeof data.isRetryable === "boolean") parsed.retryable = data.isRetryable
  const headers = isObject(data.responseHeaders)
    ? Object.entries(data.responseHeaders).filter((entry): entry is [string, string] => typeof entry[1] === "string")
    : []
  if (headers.length > 0) parsed.headers = Object.fromEntries(headers)
  if (typeof data.responseBody === "string" && data.responseBody.length > 0)
    parsed.body = data.responseBody.slice(0, BODY_CHARS)
  return parsed
}
