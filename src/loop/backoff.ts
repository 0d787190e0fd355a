// How long to wait after a rate limit, a usage limit or an overload: the reset time the provider
// names — in its headers (Retry-After, x-ratelimit-reset-*, anthropic-ratelimit-*-reset) or in its
// words ("try again in 2h 14m", "resets in 3 seconds", "resets at 3pm") — else exponential from the
// base. The table of forms is docs/notifications-and-limits.md.
export interface BackoffLimits {
  backoffBaseSeconds: number
  backoffMaxMinutes: number
}

/** What the reset time is read from: an OpencodeError, or any part of one. */
export interface ProviderError {
  message: string
  headers?: Record<string, string> | undefined
  /** The provider's response body, when OpenCode kept it. */
  body?: string | undefined
}

export function backoffDelayMs(error: ProviderError, attempt: number, limits: BackoffLimits, now: number): number {
  return delayWithin(error, attempt, limits.backoffBaseSeconds * 1_000, limits.backoffMaxMinutes * 60_000, now)
}

/** The provider's reset time if it names one, else `base` doubled per attempt; never under 1 s nor over `max`. */
export function delayWithin(error: ProviderError, attempt: number, baseMs: number, maxMs: number, now: number): number {
  const given = providerDelayMs(error, now)
  if (given !== undefined) return Math.min(Math.max(given, 1_000), maxMs)
  return Math.min(baseMs * 2 ** Math.max(0, attempt), maxMs)
}

/**
 * The wait the provider names, in ms from `now` (undefined: it names none). Where it names several
 * (a header and its words, two limits), the latest: the limit is gone only when all of them are.
 */
export function providerDelayMs(error: ProviderError, now: number): number | undefined {
  const named = [
    ...headerDelays(error.headers ?? {}, now),
    ...textDelays(`${error.message}\n${error.body ?? ""}`, now),
  ].filter((ms) => Number.isFinite(ms) && ms >= 0)
  return named.length > 0 ? Math.max(...named) : undefined
}

function headerDelays(raw: Record<string, string>, now: number): number[] {
  const headers = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k.toLowerCase(), v.trim()]))
  const delays: number[] = []
  const retryAfterMs = Number(headers["retry-after-ms"])
  if (headers["retry-after-ms"] && Number.isFinite(retryAfterMs)) delays.push(retryAfterMs)
  const retryAfter = headers["retry-after"]
  if (retryAfter) {
    const seconds = Number(retryAfter)
    delays.push(Number.isFinite(seconds) ? seconds * 1_000 : Date.parse(retryAfter) - now)
  }
  // OpenAI sends a reset for requests and for tokens on every answer: the exhausted one counts.
  const resets = Object.keys(headers).filter((key) => /^x-ratelimit-reset|^anthropic-ratelimit-.*reset$/.test(key))
  const exhausted = resets.filter((key) => headers[key.replace("reset", "remaining")] === "0")
  for (const key of exhausted.length > 0 ? exhausted : resets) {
    const at = resetValueMs(headers[key] ?? "", now)
    if (at !== undefined) delays.push(at)
  }
  return delays
}

/** A reset header's value: a duration ("1m30s"), seconds ("20"), epoch seconds, or a date. */
function resetValueMs(value: string, now: number): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) {
    const number = Number(value)
    return number > 1e9 ? number * 1_000 - now : number * 1_000
  }
  return durationMs(value) ?? (Number.isFinite(Date.parse(value)) ? Date.parse(value) - now : undefined)
}

const UNIT = `(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)`
const DURATION = String.raw`(\d+(?:\.\d+)?\s*${UNIT}(?![a-z])(?:[\s,]*(?:and\s+)?\d+(?:\.\d+)?\s*${UNIT}(?![a-z]))*)`
/** "try again in 2h 14m", "resets in 3 seconds", "retry after 20s", "available again in 5 minutes". */
const IN_TEXT = new RegExp(
  String.raw`(?:try again|retry|resets?|available(?: again)?)\s+(?:in|after)\s+${DURATION}`,
  "gi",
)
/** "resets at 3pm", "reset at 15:30 UTC", "try again at 2025-06-01T10:00:00Z", "resets at 3:00 PM (Europe/Berlin)". */
const DATE_TIME = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/
const EPOCH = /\d{10}\b/
const CLOCK = /\d{1,2}(?::\d{2}){0,2}\s*(?:[ap]\.?m\.?)?(?:\s*\(?(?:UTC|GMT|[A-Z][A-Za-z_]+\/[A-Za-z_/]+)\)?)?/
const AT_TEXT = new RegExp(
  String.raw`(?:try again|retry|resets?|available(?: again)?)\s+(?:at|on|after)\s+` +
    `(${DATE_TIME.source}|${EPOCH.source}|${CLOCK.source})`,
  "gi",
)
/** Claude's "usage limit reached|1735689600": the reset as epoch seconds after a bar. */
const EPOCH_AFTER_BAR = /limit reached\|(\d{10})\b/gi

function textDelays(text: string, now: number): number[] {
  const delays: number[] = []
  for (const [, duration] of text.matchAll(IN_TEXT)) {
    const ms = duration ? durationMs(duration) : undefined
    if (ms !== undefined) delays.push(ms)
  }
  for (const [, time] of text.matchAll(AT_TEXT)) {
    const at = time ? timeOfReset(time.trim(), now) : undefined
    if (at !== undefined) delays.push(at - now)
  }
  for (const [, epoch] of text.matchAll(EPOCH_AFTER_BAR)) delays.push(Number(epoch) * 1_000 - now)
  return delays
}

/**
 * A named reset time → its epoch ms: a date-time, epoch seconds, or a clock time (the next one to come, in its zone or
 * else local).
 */
function timeOfReset(time: string, now: number): number | undefined {
  if (/^\d{10}$/.test(time)) return Number(time) * 1_000
  if (/^\d{4}-/.test(time)) {
    const at = Date.parse(time.replace(" ", "T"))
    return Number.isFinite(at) ? at : undefined
  }
  const clock = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(?:([ap])\.?m\.?)?\s*\(?([A-Za-z_/]+)?\)?$/i.exec(time)
  if (!clock) return undefined
  const [, h, m, s, half, zone] = clock
  let hour = Number(h)
  if (half) {
    if (hour < 1 || hour > 12) return undefined
    hour = (hour % 12) + (half.toLowerCase() === "p" ? 12 : 0)
  } else if (m === undefined) return undefined // a bare number is no time of day
  if (hour > 23 || Number(m ?? 0) > 59) return undefined
  const offset = zoneOffsetMs(zone, now)
  if (offset === undefined) return undefined
  const wallNow = now + offset
  const dayStart = Math.floor(wallNow / 86_400_000) * 86_400_000
  let wall = dayStart + hour * 3_600_000 + Number(m ?? 0) * 60_000 + Number(s ?? 0) * 1_000
  if (wall <= wallNow) wall += 86_400_000
  return wall - offset
}

/** How far a zone's wall clock is ahead of UTC at `at` (no zone: this machine's). */
function zoneOffsetMs(zone: string | undefined, at: number): number | undefined {
  if (!zone) return -new Date(at).getTimezoneOffset() * 60_000
  if (/^(utc|gmt)$/i.test(zone)) return 0
  try {
    const parts = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    }).formatToParts(at)
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value)
    return (
      Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second")) -
      Math.floor(at / 1_000) * 1_000
    )
  } catch {
    return undefined // not a zone Intl knows
  }
}

const UNITS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
}

/** "20s", "1m30s", "250ms", "2 minutes", "1.5h", "2h 14m", "1 hour and 5 minutes" → milliseconds. */
function durationMs(text: string): number | undefined {
  let total = 0
  let matched = false
  // An amount is tried only where its digits begin (`(?<!…)`), not from each of them.
  for (const [, amount, unit] of text.replace(/\band\b|,/gi, " ").matchAll(/(?<![\d.])([\d.]+)\s*([a-z]+)/gi)) {
    const factor = UNITS[(unit ?? "").toLowerCase()]
    if (factor === undefined) return undefined
    total += Number(amount) * factor
    matched = true
  }
  return matched && Number.isFinite(total) ? total : undefined
}
