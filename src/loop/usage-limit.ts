// A usage limit — a quota, a rate limit, an overloaded provider — is a wait, not an error: the
// provider takes work again by itself, usually at a time it names. The loop waits until then (or
// backs off, up to usageLimitMaxWaitHours), and neither a retry nor the same-error breaker counts
// it. The forms recognised are the table in docs/notifications-and-limits.md.
import type { OpencodeError } from "../host/error-schema.js"
import { delayWithin, providerDelayMs } from "./backoff.js"

/**
 * What providers say: "usage limit reached", "quota exceeded", `insufficient_quota`, `rate_limit_error`, "Overloaded",
 * RESOURCE_EXHAUSTED.
 */
const LIMIT_WORDS = /usage[ _-]?limit|quota|rate[ _-]?limit|overloaded|too many requests|resource[ _-]?exhausted/i
/** A reset named in words: "resets at 3pm", "try again in 2h 14m". */
const RESET_WORDS = /(?:try again|retry|resets?|available(?: again)?)\s+(?:in|at|after|on)\s+\d/i

/**
 * 429 (too many requests), 529 (Anthropic: overloaded), or the words of a limit in the message or the response body.
 */
export function isUsageLimit(error: OpencodeError): boolean {
  if (hasLimitStatus(error)) return true
  const text = `${error.message}\n${error.body ?? ""}`
  return LIMIT_WORDS.test(text) || RESET_WORDS.test(text)
}

/** 429 or 529: the provider's own word that it is a limit, whatever the message says. */
export const hasLimitStatus = (error: OpencodeError): boolean => error.statusCode === 429 || error.statusCode === 529

export interface UsageLimitSettings {
  backoffBaseSeconds: number
  usageLimitMaxWaitHours: number
}

export interface UsageLimitWait {
  until: number
  /** The provider named the reset time (else the wait is a back-off). */
  named: boolean
}

/**
 * Until the reset the provider names, or `backoffBaseSeconds` doubled per limit in a row; at most
 * `usageLimitMaxWaitHours`.
 */
export function usageLimitWait(
  error: OpencodeError,
  limitsInARow: number,
  settings: UsageLimitSettings,
  now: number,
): UsageLimitWait {
  const max = settings.usageLimitMaxWaitHours * 3_600_000
  return {
    until: now + delayWithin(error, limitsInARow, settings.backoffBaseSeconds * 1_000, max, now),
    named: providerDelayMs(error, now) !== undefined,
  }
}
