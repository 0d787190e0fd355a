// How long to wait after a rate limit or overload: the provider's own reset time when it gave one
// (Retry-After, x-ratelimit-reset-*, "try again in 20s"), else exponential from the base.
export interface BackoffLimits {
  backoffBaseSeconds: number
  backoffMaxMinutes: number
}

export function backoffDelayMs(
  error: { message: string; headers?: Record<string, string> | undefined },
  attempt: number,
  limits: BackoffLimits,
  now: number,
): number {
  const max = limits.backoffMaxMinutes * 60_000
  const given = providerDelayMs(error, now)
  if (given !== undefined) return Math.min(Math.max(given, 1_000), max)
  return Math.min(limits.backoffBaseSeconds * 1_000 * 2 ** Math.max(0, attempt), max)
}

function providerDelayMs(error: { message: string; headers?: Record<string, string> | undefined }, now: number): number | undefined {
  const headers = Object.fromEntries(Object.entries(error.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
  const retryAfterMs = Number(headers["retry-after-ms"])
  if (Number.isFinite(retryAfterMs) && retryAfterMs > 0) return retryAfterMs
  const retryAfter = headers["retry-after"]
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter)
    if (Number.isFinite(seconds)) return seconds * 1_000
    const date = Date.parse(retryAfter)
    if (Number.isFinite(date)) return date - now
  }
  for (const key of ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens", "anthropic-ratelimit-requests-reset", "x-ratelimit-reset"]) {
    const value = headers[key]
    if (!value) continue
    const parsed = durationMs(value) ?? (Number.isFinite(Date.parse(value)) ? Date.parse(value) - now : undefined)
    if (parsed !== undefined && parsed > 0) return parsed
  }
  const inText = /try again in\s+([\d.]+\s*(?:ms|s|sec|seconds?|m|min|minutes?|h|hours?))/i.exec(error.message)
  return inText?.[1] ? durationMs(inText[1]) : undefined
}

/** "20s", "1m30s", "250ms", "2 minutes", "1.5h" → milliseconds. */
function durationMs(text: string): number | undefined {
  const units: Record<string, number> = { ms: 1, s: 1_000, sec: 1_000, second: 1_000, seconds: 1_000, m: 60_000, min: 60_000, minute: 60_000, minutes: 60_000, h: 3_600_000, hour: 3_600_000, hours: 3_600_000 }
  let total = 0
  let matched = false
  for (const [, amount, unit] of text.matchAll(/([\d.]+)\s*([a-z]+)/gi)) {
    const factor = units[(unit ?? "").toLowerCase()]
    if (factor === undefined) return undefined
    total += Number(amount) * factor
    matched = true
  }
  return matched && Number.isFinite(total) ? total : undefined
}
