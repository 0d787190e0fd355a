// The pure rule for one ended turn of a live loop: the class of the idle, then the policies in
// order. Returns what to do and the new policy state (breaker, progress, streaks) to record.
import { cooldownEndsAt, recordIteration } from "./breaker.js"
import { blockedUntil } from "./call-window.js"
import { exceededBudget, exceededSpend } from "./budgets.js"
import { classify, errorFingerprint } from "./classify.js"
import { gateOpen, indicatesCompletion } from "./exit-gate.js"
import { backoffDelayMs } from "./backoff.js"
import { usageLimitWait } from "./usage-limit.js"
import { completeLine, failureFingerprint, recurringFailures, stagnantRuns } from "./criteria.js"
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"
import type { Loop, StopReason, Wait } from "./loop.js"
import { callsToGoOn } from "./go-on.js"
import { workTreeChanged, type ProgressSample } from "./progress.js"
import { parseStatusBlock } from "./status-block.js"
import type { Turn } from "./turn.js"
import { feedbackOf, judgeTurn, promisedIn, type TurnJudgement } from "./turn-judgement.js"
import { currentStory, markCurrentDone, type PlanState } from "../plan/plan.js"
import type { Weakened } from "../evidence/record.js"
import type { Replay } from "../evidence/replay-record.js"
import { judgeReplay } from "./replay-judgement.js"
import { refusingFindings } from "../evidence/refusal.js"
import { guardMode } from "../config/guard-setting.js"

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
  | { type: "restart"; fresh: boolean; note?: string; feedback?: string }

export type LoopUpdate = Partial<
  Pick<
    Loop,
    | "breaker"
    | "progress"
    | "completionStreak"
    | "backoffs"
    | "snapshots"
    | "gotchas"
    | "plan"
    | "review"
    | "lastProgress"
    | "guard"
    | "evidence"
  >
>

export interface Outcome {
  decision: Decision
  update: LoopUpdate
}

export interface Facts {
  turn: Turn
  sample: ProgressSample
  now: number
  /** What the checks found after this turn (run when it claims completion, or every iteration). */
  snapshot?: DiagnosticSnapshot | undefined
  /** What the guard found in the loop's changes, read for this turn's claim (undefined: not read). */
  weakened?: readonly Weakened[] | undefined
  /** The replay of the start's tests for this turn's claim (issue 46; undefined: none ran). */
  replay?: Replay | undefined
}

/** Does this turn claim the task is done (before the checks have had their say)? */
export function claimsCompletion(loop: Loop, turn: Turn): boolean {
  const { settings } = loop
  const status = settings.statusBlock ? parseStatusBlock(turn.texts.join("\n")) : undefined
  const promised = promisedIn(loop, turn)
  const completionStreak = indicatesCompletion(promised, status) ? loop.completionStreak + 1 : 0
  return gateOpen({ gate: settings.exitGate, promised, status, completionStreak })
}

/** The turn's last reply is the one the loop last decided on (a second idle for it is a duplicate). */
export const isDecided = (loop: Loop, turn: Turn): boolean =>
  turn.lastAssistantID !== undefined && turn.lastAssistantID === loop.lastDecidedMessageID

/** The turn has a reply the loop has not decided on yet. */
export const hasNewReply = (loop: Loop, turn: Turn): boolean =>
  turn.lastAssistantID !== undefined && turn.lastAssistantID !== loop.lastDecidedMessageID

/** The decision; the guard's findings, when read for this turn, are recorded with it (status, journal). */
export function decide(loop: Loop, facts: Facts): Outcome {
  const outcome = decideTurn(loop, facts)
  if ((facts.weakened === undefined && facts.replay === undefined) || outcome.decision.type === "ignore") return outcome
  const findings = [...(facts.weakened ?? [])]
  const mode = guardMode(loop.settings.guard)
  const { refusedExpectations } = judgeReplay(loop, facts.replay, refusingFindings(mode, findings))
  const guard = {
    iteration: loop.iteration,
    findings,
    ...(facts.replay ? { replay: facts.replay } : {}),
    ...(refusedExpectations.length > 0 ? { refusedExpectations } : {}),
  }
  return { decision: outcome.decision, update: { ...outcome.update, guard } }
}

function decideTurn(loop: Loop, { turn, sample, now, snapshot, weakened, replay }: Facts): Outcome {
  const done = (decision: Decision, update: LoopUpdate = {}): Outcome => ({ decision, update })
  if (isDecided(loop, turn)) return done({ type: "ignore", reason: "turn already decided" })

  const { settings } = loop
  const turnClass = classify(turn, loop.turnEvents)
  if (turnClass.kind === "pending") {
    return done({ type: "wait-for-user", reason: "a permission or question is waiting for you" })
  }
  if (turnClass.kind === "aborted") return done({ type: "pause", reason: "you interrupted the model (Esc)" })
  if (turnClass.kind === "auth") {
    const detail = `the provider refused the credentials: ${turnClass.error.message}`
    return done({ type: "stop", reason: "auth-error", detail })
  }

  const judged = judgeTurn(loop, turn, sample, snapshot, weakened, replay)
  const { status, completionStreak, snapshots, gotchas, measured, unmet } = judged
  if (criteriaMet(loop, judged, sample, snapshot)) {
    const line = completeLine(loop.sessionID, loop.iteration, snapshots, loop.initialChecks)
    const detail = `every criterion holds after an iteration that changed the work tree — ${line}`
    const update = { completionStreak, snapshots, gotchas, lastProgress: measured.progress }
    return done({ type: "complete", detail }, update)
  }
  // In a plan loop the claim is for the current story: the plugin marks it done, and the loop
  // completes when no story is left.
  const passed = snapshot ? snapshot.checks.filter((c) => c.status === "passed").map((c) => c.name) : []
  const plan = judged.accepted && loop.plan ? markCurrentDone(loop.plan, loop.iteration, passed) : undefined
  if (judged.accepted && (!plan || !currentStory(plan))) return completed(turn, judged, plan, snapshot)
  // A story marked done keeps the check run that justified it in the history, whatever comes next.
  const storyDone = plan ? { plan, completionStreak: 0, snapshots, gotchas } : { completionStreak }
  const circular = circularFailures(snapshots, snapshot)
  // A circular fix is motion, not progress: it counts toward the breaker. A story done is progress.
  const lastProgress = plan !== undefined || (measured.progress && circular.length === 0)
  const feedback = feedbackOf(loop, judged, snapshot, circular)
  if (status?.status === "BLOCKED") {
    const reason = `the model is blocked${status.recommendation ? `: ${status.recommendation}` : ""}`
    return done({ type: "pause", reason }, { ...storyDone, snapshots, gotchas, lastProgress })
  }
  if (snapshot && !plan && stagnantRuns(snapshots) >= settings.stagnationLimit) {
    const still = unmet.join(", ") || "no change"
    const detail =
      `${settings.stagnationLimit} check runs in a row without fewer issues (stagnationLimit); ` + `still: ${still}`
    return done({ type: "stop", reason: "stagnation", detail }, { completionStreak, snapshots, gotchas, lastProgress })
  }
  const providerFailed = providerOutcome(loop, turnClass, storyDone, now)
  if (providerFailed) return providerFailed

  if (!settings.autoRestart) {
    if (!plan) return done({ type: "report-missing-promise" }, { completionStreak, backoffs: 0, lastProgress })
    const story = loop.plan ? currentStory(loop.plan)?.id : ""
    const reason = `story ${story} is done; autoRestart is off, so the next story waits for /ralph-resume`
    return done({ type: "pause", reason }, { ...storyDone, backoffs: 0, snapshots, gotchas, lastProgress })
  }

  const error = turnClass.kind === "failed" ? errorFingerprint(turnClass.error) : undefined
  const iteration = { progress: lastProgress, error, failure: failureFingerprint(snapshot) }
  const breaker = recordIteration(loop.breaker, iteration, settings, now)
  const after = { backoffs: 0, snapshots, gotchas, lastProgress }
  const update: LoopUpdate = { breaker, progress: measured.next, ...storyDone, ...after }
  // A used-up budget stops at once: no cooldown is waited out for an iteration that may not come.
  // A story done now starts the next one's retries over.
  const breach = exceededBudget(plan ? { ...loop, plan } : loop, now)
  if (breach) return done({ type: "stop", reason: breach.reason, detail: breach.detail }, update)
  if (breaker.state === "OPEN") return breakerWait(loop, breaker, now, update)

  const fresh = turnClass.kind === "overflow"
  const blocked = blockedUntil(loop.calls, settings, now, callsToGoOn(loop, { then: "next", fresh }))
  if (blocked !== undefined) {
    const detail = `${settings.maxCallsPerHour} calls per window reached (maxCallsPerHour)`
    return done({ type: "wait", wait: { reason: "call-limit", until: blocked, then: "next", fresh }, detail }, update)
  }

  const failedTurn =
    turnClass.kind === "failed" ? `the last turn ended in an error: ${turnClass.error.message}` : undefined
  const note = fresh ? turnClass.detail : failedTurn
  return done({ type: "restart", fresh, ...(note ? { note } : {}), ...(feedback ? { feedback } : {}) }, update)
}

/** Failures fixed before that are back in this turn's checks. */
function circularFailures(snapshots: Loop["snapshots"], snapshot: DiagnosticSnapshot | undefined): string[] {
  if (!snapshot) return []
  return recurringFailures(snapshots).filter((key) =>
    snapshot.checks.some((c) => key.startsWith(`${c.name}: `) && c.status !== "passed"),
  )
}

/** Seed 004: a loop started with its criteria completes when they all hold after it changed the work tree. */
function criteriaMet(
  loop: Loop,
  judged: TurnJudgement,
  sample: ProgressSample,
  snapshot: DiagnosticSnapshot | undefined,
): boolean {
  const { settings } = loop
  if (judged.claimed || loop.plan || !settings.completeOnCriteria || snapshot === undefined) return false
  if (judged.unmet.length > 0 || judged.refusing.length > 0 || !workTreeChanged(loop.progress, sample)) return false
  if (guardMode(settings.guard) === "refuse" && judged.replay.refused.length > 0) return false
  return !settings.requireTodosDone || sample.openTodos.length === 0
}

/** An accepted claim that ends the loop: the task done, or a plan's last story (or its one --story). */
function completed(
  turn: Turn,
  judged: TurnJudgement,
  plan: PlanState | undefined,
  snapshot: DiagnosticSnapshot | undefined,
): Outcome {
  const { promised, completionStreak, snapshots, gotchas, measured } = judged
  const claim = turn.doneCall
    ? "ralph_done was called"
    : promised
      ? "the promise was kept"
      : "the status block signalled the exit"
  const how = `${claim}${snapshot ? " and the checks pass" : ""}`
  const detail =
    plan?.only !== undefined
      ? `story ${plan.only} of the plan is done (the one story of this loop): ${how}`
      : plan
        ? `all ${plan.stories.length} stories of the plan are done; the last one: ${how}`
        : how
  // The completing turn's progress is recorded as any other's (a story done is progress).
  const lastProgress = plan !== undefined || measured.progress
  const update = { completionStreak, snapshots, gotchas, lastProgress, ...(plan ? { plan } : {}) }
  return { decision: { type: "complete", detail }, update }
}

/** A provider's usage limit (a wait, unless the budget is spent) or a transient failure (a back-off). */
function providerOutcome(
  loop: Loop,
  turnClass: ReturnType<typeof classify>,
  storyDone: LoopUpdate,
  now: number,
): Outcome | undefined {
  const { settings } = loop
  if (turnClass.kind === "usage-limit") {
    // Waiting spends wall time: a loop out of its time (or token, cost) budget stops rather than waits.
    const spent = exceededSpend(loop, now)
    if (spent) {
      return { decision: { type: "stop", reason: spent.reason, detail: spent.detail }, update: { ...storyDone } }
    }
    const wait = usageLimitWait(turnClass.error, loop.backoffs, settings, now)
    const unnamed = wait.named ? "" : "; it named no reset time, so the loop backs off"
    const detail = `the provider's usage limit (${turnClass.error.message})${unnamed}`
    return {
      decision: { type: "wait", wait: { reason: "usage-limit", until: wait.until, then: "resume" }, detail },
      update: { backoffs: loop.backoffs + 1, ...storyDone },
    }
  }
  if (turnClass.kind === "transient") {
    const iteration = { progress: false, error: errorFingerprint(turnClass.error) }
    const breaker = recordIteration(loop.breaker, iteration, settings, now)
    if (breaker.state === "OPEN") return breakerWait(loop, breaker, now, { ...storyDone })
    const delay = backoffDelayMs(turnClass.error, loop.backoffs, settings, now)
    const detail = `the provider failed for a moment (${turnClass.error.message})`
    return {
      decision: { type: "wait", wait: { reason: "backoff", until: now + delay, then: "resume" }, detail },
      update: { breaker, backoffs: loop.backoffs + 1, ...storyDone, lastProgress: false },
    }
  }
  return undefined
}

function breakerWait(loop: Loop, breaker: Loop["breaker"], _now: number, update: LoopUpdate): Outcome {
  const until = cooldownEndsAt(breaker, loop.settings)
  return {
    decision: {
      type: "wait",
      wait: { reason: "breaker", until, then: "next" },
      detail: breaker.reason ?? "no progress",
    },
    update: { ...update, breaker },
  }
}
