// The circuit breaker of seed 002, three states. CLOSED → OPEN after `noProgressThreshold`
// iterations without progress or `sameErrorThreshold` iterations ending in the same error — a
// model error, or the same checks failing the same way;
// OPEN → HALF_OPEN once the cooldown has passed; HALF_OPEN → CLOSED on progress, → OPEN otherwise.
import { z } from "zod"

export const breakerSchema = z.object({
  state: z.enum(["CLOSED", "OPEN", "HALF_OPEN"]),
  noProgress: z.int().min(0),
  sameError: z.int().min(0),
  lastError: z.string().optional(),
  openedAt: z.number().optional(),
  /** Why it opened last. */
  reason: z.string().optional(),
})
export type Breaker = z.infer<typeof breakerSchema>
export type BreakerState = Breaker["state"]

export interface IterationOutcome {
  progress: boolean
  /** Fingerprint of the error the iteration ended in, if any. */
  error?: string | undefined
  /** Fingerprint of the checks that failed after it, if any: the same error, but not instead of progress. */
  failure?: string | undefined
}

export interface BreakerLimits {
  noProgressThreshold: number
  sameErrorThreshold: number
  cooldownMinutes: number
}

export const closedBreaker = (): Breaker => ({ state: "CLOSED", noProgress: 0, sameError: 0 })

export function recordIteration(
  breaker: Breaker,
  outcome: IterationOutcome,
  limits: BreakerLimits,
  now: number,
): Breaker {
  const fault = outcome.error ?? outcome.failure
  const sameError = fault !== undefined && fault === breaker.lastError ? breaker.sameError + 1 : fault ? 1 : 0
  // An error turn is judged by the same-error counter only, so a flaky provider does not also
  // count as "no progress".
  const noProgress = outcome.error ? breaker.noProgress : outcome.progress ? 0 : breaker.noProgress + 1
  const next: Breaker = { ...breaker, noProgress, sameError, lastError: fault }

  if (breaker.state === "HALF_OPEN") {
    if (outcome.progress && !outcome.error) return { ...next, state: "CLOSED", noProgress: 0, sameError: 0 }
    return open(
      next,
      now,
      outcome.error ? `the probe turn ended in an error: ${outcome.error}` : "the probe turn made no progress",
    )
  }
  if (sameError >= limits.sameErrorThreshold)
    return open(next, now, `${sameError} iterations in a row ended in the same error: ${fault}`)
  if (noProgress >= limits.noProgressThreshold)
    return open(next, now, `${noProgress} iterations in a row without progress`)
  return next
}

function open(breaker: Breaker, now: number, reason: string): Breaker {
  return { ...breaker, state: "OPEN", openedAt: now, reason }
}

export const cooldownEndsAt = (breaker: Breaker, limits: BreakerLimits): number =>
  (breaker.openedAt ?? 0) + limits.cooldownMinutes * 60_000

/** OPEN → HALF_OPEN once the cooldown has passed (called by the cooldown timer). */
export function afterCooldown(breaker: Breaker, limits: BreakerLimits, now: number): Breaker {
  if (breaker.state !== "OPEN" || now < cooldownEndsAt(breaker, limits)) return breaker
  return probe(breaker)
}

/** The next turn is the probe: HALF_OPEN (after the cooldown, or when the user goes on by hand). */
export const probe = (breaker: Breaker): Breaker => ({ ...breaker, state: "HALF_OPEN" })
