// The pure rule for one ended turn of a live loop: the class of the idle, then the policies in
// order. Returns what to do and the new policy state (breaker, progress, streaks) to record.
import { cooldownEndsAt, recordIteration } from "./breaker.js"
import { blockedUntil } from "./call-window.js"
import { exceededBudget } from "./budgets.js"
import { classify, errorFingerprint } from "./classify.js"
import { keptPromise } from "./completion.js"
import { gateOpen, indicatesCompletion } from "./exit-gate.js"
import { backoffDelayMs } from "./backoff.js"
import type { Loop, StopReason, Wait } from "./loop.js"
import { measureProgress, type ProgressSample } from "./progress.js"
import { parseStatusBlock } from "./status-block.js"
import type { Turn } from "./turn.js"

export type Decision =
  | { type: "ignore"; reason: string }
  /** A permission or question is waiting for the user: send nothing, watch the next idle. */
  | { type: "wait-for-user"; reason: string }
  | { type: "complete"; detail: string }
  | { type: "pause"; reason: string }
  | { type: "stop"; reason: StopReason; detail: string }
  /** autoRestart off: say the promise is missing, keep watching, send nothing. */
  | { type: "report-missing-promise" }
  | { type: "wait"; wait: Wait; detail: string }
  /** The next iteration; `fresh` forces a new session whatever the strategy (context overflow). */
  | { type: "restart"; fresh: boolean; note?: string }

export type LoopUpdate = Partial<Pick<Loop, "breaker" | "progress" | "completionStreak" | "backoffs">>

export interface Outcome {
  decision: Decision
  update: LoopUpdate
}

export interface Facts {
  turn: Turn
  sample: ProgressSample
  now: number
}

export function decide(loop: Loop, { turn, sample, now }: Facts): Outcome {
  const done = (decision: Decision, update: LoopUpdate = {}): Outcome => ({ decision, update })
  if (turn.lastAssistantID !== undefined && turn.lastAssistantID === loop.lastDecidedMessageID)
    return done({ type: "ignore", reason: "turn already decided" })

  const { settings } = loop
  const turnClass = classify(turn, loop.turnEvents)
  if (turnClass.kind === "pending") return done({ type: "wait-for-user", reason: "a permission or question is waiting for you" })
  if (turnClass.kind === "aborted") return done({ type: "pause", reason: "you interrupted the model (Esc)" })
  if (turnClass.kind === "auth")
    return done({ type: "stop", reason: "auth-error", detail: `the provider refused the credentials: ${turnClass.error.message}` })

  const text = turn.texts.join("\n")
  const status = settings.statusBlock ? parseStatusBlock(text) : undefined
  const promised = keptPromise(turn.texts, settings.promiseWord)
  const completionStreak = indicatesCompletion(promised, status) ? loop.completionStreak + 1 : 0
  if (gateOpen({ gate: settings.exitGate, promised, status, completionStreak }))
    return done({ type: "complete", detail: promised ? "the promise was kept" : "the status block signalled the exit" }, { completionStreak })
  if (status?.status === "BLOCKED")
    return done({ type: "pause", reason: `the model is blocked${status.recommendation ? `: ${status.recommendation}` : ""}` }, { completionStreak })

  if (turnClass.kind === "rate-limited") {
    const breaker = recordIteration(loop.breaker, { progress: false, error: errorFingerprint(turnClass.error) }, settings, now)
    if (breaker.state === "OPEN") return breakerWait(loop, breaker, now, { completionStreak })
    const delay = backoffDelayMs(turnClass.error, loop.backoffs, settings, now)
    return done(
      { type: "wait", wait: { reason: "backoff", until: now + delay, then: "resume" }, detail: `the provider is limiting or overloaded (${turnClass.error.message})` },
      { breaker, backoffs: loop.backoffs + 1, completionStreak },
    )
  }

  if (!settings.autoRestart) return done({ type: "report-missing-promise" }, { completionStreak, backoffs: 0 })

  const measured = measureProgress(loop.progress, sample, turn.texts)
  const error = turnClass.kind === "failed" ? errorFingerprint(turnClass.error) : undefined
  const breaker = recordIteration(loop.breaker, { progress: measured.progress, error }, settings, now)
  const update: LoopUpdate = { breaker, progress: measured.next, completionStreak, backoffs: 0 }
  if (breaker.state === "OPEN") return breakerWait(loop, breaker, now, update)

  const breach = exceededBudget(loop, now)
  if (breach) return done({ type: "stop", reason: breach.reason, detail: breach.detail }, update)

  const fresh = turnClass.kind === "overflow"
  const calls = fresh || settings.strategy !== "continue" ? 2 : 1
  const blocked = blockedUntil(loop.calls, settings, now, calls)
  if (blocked !== undefined)
    return done({ type: "wait", wait: { reason: "call-limit", until: blocked, then: "next", fresh }, detail: `${settings.maxCallsPerHour} calls per window reached (maxCallsPerHour)` }, update)

  const note = fresh ? turnClass.detail : turnClass.kind === "failed" ? `the last turn ended in an error: ${turnClass.error.message}` : undefined
  return done(note ? { type: "restart", fresh, note } : { type: "restart", fresh }, update)
}

function breakerWait(loop: Loop, breaker: Loop["breaker"], now: number, update: LoopUpdate): Outcome {
  const until = cooldownEndsAt(breaker, loop.settings)
  return {
    decision: { type: "wait", wait: { reason: "breaker", until, then: "next" }, detail: breaker.reason ?? "no progress" },
    update: { ...update, breaker },
  }
}
