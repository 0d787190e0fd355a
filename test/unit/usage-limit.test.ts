// Usage limits are waits, not errors: one test per form a provider uses (the table in
// docs/notifications-and-limits.md), as OpenCode hands it to the plugin (an APIError's message,
// status, response headers and body).
import { describe, expect, it } from "vitest"
import { classify } from "../../src/loop/classify.js"
import { decide } from "../../src/loop/decide.js"
import { resumeByHand } from "../../src/loop/resume.js"
import { usageLimitWait } from "../../src/loop/usage-limit.js"
import { emptyTurnEvents } from "../../src/loop/turn-events.js"
import type { OpencodeError } from "../../src/host/error-schema.js"
import { loop } from "./fixtures.js"

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0) // 12:00 UTC
const settings = { backoffBaseSeconds: 30, usageLimitMaxWaitHours: 6 }
const api = (message: string, extra: Partial<OpencodeError> = {}): OpencodeError => ({
  name: "APIError",
  message,
  ...extra,
})
const kind = (error: OpencodeError) => classify({ texts: [], error }, emptyTurnEvents()).kind
/** The wait for `error` as the first limit in a row, in ms from NOW. */
const waitMs = (error: OpencodeError, inARow = 0) => usageLimitWait(error, inARow, settings, NOW).until - NOW

describe("usage limits: each form is recognised, and waited out until the reset it names", () => {
  it('"usage limit reached" (no reset named): a back-off from backoffBaseSeconds, doubling', () => {
    const error = api("usage limit reached", { statusCode: 400 })
    expect(kind(error)).toBe("usage-limit")
    expect(usageLimitWait(error, 0, settings, NOW)).toEqual({ until: NOW + 30_000, named: false })
    expect(waitMs(error, 3)).toBe(240_000)
    expect(waitMs(error, 30)).toBe(6 * 3_600_000)
  })

  it('"usage limit reached, resets in 3 seconds"', () => {
    const error = api("usage limit reached, resets in 3 seconds", {
      statusCode: 429,
      retryable: true,
      headers: { "retry-after": "0" },
    })
    expect(kind(error)).toBe("usage-limit")
    // The header says "now", the words say 3 s: the later one.
    expect(usageLimitWait(error, 0, settings, NOW)).toEqual({ until: NOW + 3_000, named: true })
  })

  it('"quota exceeded … resets at 3pm" (local time), and with its zone named', () => {
    const local = new Date(NOW)
    local.setHours(15, 0, 0, 0)
    if (local.getTime() <= NOW) local.setDate(local.getDate() + 1)
    expect(kind(api("Quota exceeded for this billing period; it resets at 3pm."))).toBe("usage-limit")
    expect(waitMs(api("Quota exceeded for this billing period; it resets at 3pm."))).toBe(local.getTime() - NOW)
    expect(waitMs(api("quota exceeded, resets at 3:30 PM UTC"))).toBe(3.5 * 3_600_000)
    // 15:00 in Berlin is 14:00 UTC in November.
    expect(waitMs(api("Your limit resets at 3pm (Europe/Berlin)"))).toBe(2 * 3_600_000)
    // A time already past today is tomorrow's.
    const patient = { ...settings, usageLimitMaxWaitHours: 48 }
    expect(usageLimitWait(api("quota exceeded, resets at 11:00 UTC"), 0, patient, NOW).until - NOW).toBe(23 * 3_600_000)
    expect(waitMs(api("quota exceeded, resets at 2026-11-24T13:15:00Z"))).toBe(75 * 60_000)
  })

  it('"try again in 2h 14m", and the other duration spellings', () => {
    expect(kind(api("You have hit your limit. Try again in 2h 14m."))).toBe("usage-limit")
    expect(waitMs(api("You have hit your limit. Try again in 2h 14m."))).toBe((2 * 60 + 14) * 60_000)
    expect(waitMs(api("Rate limit reached. Please try again in 20s."))).toBe(20_000)
    expect(waitMs(api("rate limited: retry after 1m30s"))).toBe(90_000)
    expect(waitMs(api("limit reached; available again in 1 hour and 5 minutes"))).toBe(65 * 60_000)
  })

  it("a wait longer than usageLimitMaxWaitHours is cut to it (the loop then tries again)", () => {
    expect(waitMs(api("usage limit reached, try again in 10 hours"))).toBe(6 * 3_600_000)
  })

  it("429 with retry-after or x-ratelimit-reset-* headers: the exhausted limit's reset", () => {
    expect(waitMs(api("Too Many Requests", { statusCode: 429, headers: { "Retry-After": "12" } }))).toBe(12_000)
    expect(
      waitMs(
        api("Too Many Requests", { statusCode: 429, headers: { "retry-after": new Date(NOW + 90_000).toUTCString() } }),
      ),
    ).toBe(90_000)
    const openai = {
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "1m30s",
      "x-ratelimit-remaining-tokens": "5000",
      "x-ratelimit-reset-tokens": "6m0s",
    }
    expect(kind(api("Rate limit reached for requests", { statusCode: 429, headers: openai }))).toBe("usage-limit")
    expect(waitMs(api("Rate limit reached for requests", { statusCode: 429, headers: openai }))).toBe(90_000)
    expect(
      waitMs(
        api("Too Many Requests", { statusCode: 429, headers: { "x-ratelimit-reset": String(NOW / 1_000 + 600) } }),
      ),
    ).toBe(600_000)
  })

  it("Anthropic's rate_limit_error (its body and its anthropic-ratelimit-*-reset headers)", () => {
    const error = api(
      "This request would exceed the rate limit for your organization of 40,000 input tokens per minute.",
      {
        statusCode: 429,
        headers: {
          "anthropic-ratelimit-input-tokens-remaining": "0",
          "anthropic-ratelimit-input-tokens-reset": new Date(NOW + 45_000).toISOString(),
          "retry-after": "40",
        },
        body: '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit"}}',
      },
    )
    expect(kind(error)).toBe("usage-limit")
    expect(waitMs(error)).toBe(45_000)
    // The type alone, behind a proxy that answers 400: still a limit.
    expect(kind(api("Bad Request", { statusCode: 400, body: '{"error":{"type":"rate_limit_error"}}' }))).toBe(
      "usage-limit",
    )
  })

  it("Anthropic's overloaded_error (529): a back-off", () => {
    const error = api("Overloaded", {
      statusCode: 529,
      body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    })
    expect(kind(error)).toBe("usage-limit")
    expect(usageLimitWait(error, 1, settings, NOW)).toEqual({ until: NOW + 60_000, named: false })
  })

  it("OpenAI's insufficient_quota (in the body; the message only speaks of a quota)", () => {
    const error = api("You exceeded your current quota, please check your plan and billing details.", {
      statusCode: 429,
      body: '{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}',
    })
    expect(kind(error)).toBe("usage-limit")
    expect(kind(api("Forbidden", { statusCode: 402, body: '{"error":{"code":"insufficient_quota"}}' }))).toBe(
      "usage-limit",
    )
  })

  it('Claude\'s subscription form: "usage limit reached|<epoch seconds of the reset>"', () => {
    const error = api(`Claude AI usage limit reached|${NOW / 1_000 + 3_600}`)
    expect(kind(error)).toBe("usage-limit")
    expect(waitMs(error)).toBe(3_600_000)
  })

  it("what is no usage limit stays what it was: auth, a full context, a transient 5xx, a plain failure", () => {
    expect(kind(api("Incorrect API key provided", { statusCode: 401 }))).toBe("auth")
    expect(
      kind(api("This model's maximum context length is 8192 tokens (context_length_exceeded)", { statusCode: 400 })),
    ).toBe("overflow")
    // Words of both: the overflow's win unless the status says limit.
    expect(kind(api("prompt is too long: the request exceeds the context window quota", { statusCode: 400 }))).toBe(
      "overflow",
    )
    expect(kind(api("Rate limit: too many tokens per minute", { statusCode: 429 }))).toBe("usage-limit")
    expect(kind(api("Input length limit exceeded", { statusCode: 400 }))).toBe("failed")
    expect(kind(api("Internal Server Error", { statusCode: 500 }))).toBe("transient")
    expect(kind(api("Invalid tool schema", { statusCode: 400 }))).toBe("failed")
  })
})

describe("usage limits in the loop's decision", () => {
  const limited = (id: string) => ({
    lastAssistantID: id,
    texts: [],
    error: api("usage limit reached, resets in 3 seconds", { statusCode: 429 }),
  })
  const facts = (id: string, now: number) => ({
    turn: limited(id),
    sample: { workTree: "t", todosCompleted: 0, openTodos: [], sessionID: "ses_a" },
    now,
  })

  it("waits with reason usage-limit and resumes the same iteration: no retry, no breaker count", () => {
    const l = loop({ startedAt: NOW }, { sameErrorThreshold: 1, noProgressThreshold: 1 })
    const { decision, update } = decide(l, facts("msg_1", NOW))
    expect(decision).toMatchObject({
      type: "wait",
      wait: { reason: "usage-limit", until: NOW + 3_000, then: "resume" },
    })
    expect(update.breaker).toBeUndefined()
    expect(update.backoffs).toBe(1)
    // A second limit in a row: still no breaker, even with thresholds of 1.
    const again = decide({ ...l, backoffs: 1 }, facts("msg_2", NOW)).decision
    expect(again).toMatchObject({ type: "wait", wait: { reason: "usage-limit" } })
  })

  it("a loop out of its time, token or cost budget stops instead of waiting", () => {
    const late = loop({ startedAt: NOW - 481 * 60_000 })
    expect(decide(late, facts("msg_3", NOW)).decision).toMatchObject({ type: "stop", reason: "time-budget" })
    const spent = loop({ startedAt: NOW, usage: { ses_a: { tokens: 10, cost: 30 } } })
    expect(decide(spent, facts("msg_4", NOW)).decision).toMatchObject({ type: "stop", reason: "cost-budget" })
    // The iteration limits do not stop a wait: it uses no iteration.
    expect(decide(loop({ startedAt: NOW, retries: 3, iteration: 4 }), facts("msg_5", NOW)).decision).toMatchObject({
      type: "wait",
    })
  })

  it("/ralph-resume ends the wait early: the same iteration goes on, the breaker untouched", () => {
    const waiting = loop({ phase: "waiting", wait: { reason: "usage-limit", until: NOW + 3_600_000, then: "resume" } })
    expect(resumeByHand(waiting)).toEqual({ how: { then: "resume", fresh: false }, breaker: waiting.breaker })
  })
})
