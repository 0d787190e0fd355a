// The pure rule for one ended turn of a live loop: the class of the idle, then the policies in
// order. Returns what to do and the new policy state (breaker, progress, streaks) to record.
import { cooldownEndsAt, recordIteration } from "./breaker.js"
import { blockedUntil } from "./call-window.js"
import { exceededBudget, exceededSpend } from "./budgets.js"
import { classify, errorFingerprint } from "./classify.js"
import { judgeClaim, todosFeedback } from "./claim.js"
import { keptPromise } from "./completion.js"
import { gateOpen, indicatesCompletion } from "./exit-gate.js"
import { backoffDelayMs } from "./backoff.js"
import { usageLimitWait } from "./usage-limit.js"
import {
  completeLine,
  failureFingerprint,
  failureReport,
  feedbackLine,
  recurringFailures,
  stagnantRuns,
} from "./criteria.js"
import { issueCount, keepHistory, type DiagnosticSnapshot } from "../checks/diagnostics.js"
import { maxIterations, type Loop, type StopReason, type Wait } from "./loop.js"
import { callsToGoOn } from "./go-on.js"
import { measureProgress, workTreeChanged, type ProgressSample } from "./progress.js"
import { learnGotchas } from "./gotchas.js"
import { parseStatusBlock } from "./status-block.js"
import type { Turn } from "./turn.js"
import { currentStory, markCurrentDone } from "../plan/plan.js"
import { guardMode } from "../config/guard-setting.js"
import type { Weakened } from "../evidence/record.js"
import { refusalFeedback, refusingFindings } from "../evidence/refusal.js"

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
}

/** Does this turn claim the task is done (before the checks have had their say)? */
export function claimsCompletion(loop: Loop, turn: Turn): boolean {
  const { settings } = loop
  const status = settings.statusBlock ? parseStatusBlock(turn.texts.join("\n")) : undefined
  const promised = promisedIn(loop, turn)
  const completionStreak = indicatesCompletion(promised, status) ? loop.completionStreak + 1 : 0
  return gateOpen({ gate: settings.exitGate, promised, status, completionStreak })
}

/** The promise (or a completion marker) in the model's own text, or a call of the ralph_done tool: the same claim. */
const promisedIn = (loop: Loop, turn: Turn): boolean =>
  turn.doneCall !== undefined || keptPromise(turn.texts, loop.settings.promiseWord, loop.settings.completionMarkers)

/** The turn's last reply is the one the loop last decided on (a second idle for it is a duplicate). */
export const isDecided = (loop: Loop, turn: Turn): boolean =>
  turn.lastAssistantID !== undefined && turn.lastAssistantID === loop.lastDecidedMessageID

/** The turn has a reply the loop has not decided on yet. */
export const hasNewReply = (loop: Loop, turn: Turn): boolean =>
  turn.lastAssistantID !== undefined && turn.lastAssistantID !== loop.lastDecidedMessageID

/** The decision; the guard's findings, when read for this turn, are recorded with it (status, journal). */
export function decide(loop: Loop, facts: Facts): Outcome {
  const outcome = decideTurn(loop, facts)
  if (facts.weakened === undefined || outcome.decision.type === "ignore") return outcome
  return {
    decision: outcome.decision,
    update: { ...outcome.update, guard: { iteration: loop.iteration, findings: [...facts.weakened] } },
  }
}

function decideTurn(loop: Loop, { turn, sample, now, snapshot, weakened }: Facts): Outcome {
  const done = (decision: Decision, update: LoopUpdate = {}): Outcome => ({ decision, update })
  if (isDecided(loop, turn)) return done({ type: "ignore", reason: "turn already decided" })

  const { settings } = loop
  const turnClass = classify(turn, loop.turnEvents)
  if (turnClass.kind === "pending")
    return done({ type: "wait-for-user", reason: "a permission or question is waiting for you" })
  if (turnClass.kind === "aborted") return done({ type: "pause", reason: "you interrupted the model (Esc)" })
  if (turnClass.kind === "auth")
    return done({
      type: "stop",
      reason: "auth-error",
      detail: `the provider refused the credentials: ${turnClass.error.message}`,
    })

  const text = turn.texts.join("\n")
  const status = settings.statusBlock ? parseStatusBlock(text) : undefined
  const promised = promisedIn(loop, turn)
  const completionStreak = indicatesCompletion(promised, status) ? loop.completionStreak + 1 : 0
  const snapshots = snapshot ? keepHistory([...loop.snapshots, snapshot]) : loop.snapshots
  const gotchas = snapshot ? learnGotchas(loop.gotchas, snapshot) : loop.gotchas
  const claimed = gateOpen({ gate: settings.exitGate, promised, status, completionStreak })
  const previous = loop.snapshots.at(-1)
  const measured = measureProgress(
    loop.progress,
    sample,
    turn.texts,
    snapshot !== undefined && previous !== undefined && issueCount(snapshot) < issueCount(previous),
  )
  // Open todos veto a completion claim, as a failing check does.
  const { unmet, openTodos, accepted: passes } = judgeClaim(snapshot, claimed ? sample.openTodos : [], settings)
  // The guard (issue 39): changes that weaken the checks refuse a claim as a failing check does.
  const refusing = refusingFindings(guardMode(settings.guard), weakened)
  const accepted = claimed && passes && refusing.length === 0
  // Seed 004: a loop started with its criteria completes when they all hold after it changed the work tree.
  const criteriaMet =
    !claimed &&
    !loop.plan &&
    settings.completeOnCriteria &&
    snapshot !== undefined &&
    unmet.length === 0 &&
    workTreeChanged(loop.progress, sample) &&
    (!settings.requireTodosDone || sample.openTodos.length === 0) &&
    refusing.length === 0
  if (criteriaMet)
    return done(
      {
        type: "complete",
        detail: `every criterion holds after an iteration that changed the work tree — ${completeLine(loop.sessionID, loop.iteration, snapshots, loop.initialChecks)}`,
      },
      { completionStreak, snapshots, gotchas, lastProgress: measured.progress },
    )
  // In a plan loop the claim is for the current story: the plugin marks it done, and the loop
  // completes when no story is left.
  const plan =
    accepted && loop.plan
      ? markCurrentDone(
          loop.plan,
          loop.iteration,
          snapshot ? snapshot.checks.filter((c) => c.status === "passed").map((c) => c.name) : [],
        )
      : undefined
  if (accepted && (!plan || !currentStory(plan))) {
    const how = `${turn.doneCall ? "ralph_done was called" : promised ? "the promise was kept" : "the status block signalled the exit"}${snapshot ? " and the checks pass" : ""}`
    const detail =
      plan?.only !== undefined
        ? `story ${plan.only} of the plan is done (the one story of this loop): ${how}`
        : plan
          ? `all ${plan.stories.length} stories of the plan are done; the last one: ${how}`
          : how
    // The completing turn's progress is recorded as any other's (a story done is progress).
    return done(
      { type: "complete", detail },
      {
        completionStreak,
        snapshots,
        gotchas,
        lastProgress: plan !== undefined || measured.progress,
        ...(plan ? { plan } : {}),
      },
    )
  }
  // A story marked done keeps the check run that justified it in the history, whatever comes next.
  const storyDone = plan ? { plan, completionStreak: 0, snapshots, gotchas } : { completionStreak }
  const circular = snapshot
    ? recurringFailures(snapshots).filter((key) =>
        snapshot.checks.some((c) => key.startsWith(`${c.name}: `) && c.status !== "passed"),
      )
    : []
  // A circular fix is motion, not progress: it counts toward the breaker. A story done is progress.
  const lastProgress = plan !== undefined || (measured.progress && circular.length === 0)
  const checksFeedback =
    snapshot && unmet.length > 0
      ? [
          feedbackLine(
            loop.iteration + 1,
            maxIterations(loop),
            unmet,
            snapshots,
            claimed
              ? "the completion claim was rejected — fix what the checks report, then claim again"
              : "fix what the checks report",
          ),
          ...(circular.length
            ? [
                "",
                `Circular fix: these failures were fixed before and are back — do not undo the earlier fix ` +
                  `again: ${circular.join("; ")}`,
              ]
            : []),
          "",
          failureReport(snapshot),
        ]
      : []
  const todos = todosFeedback(openTodos)
  const guarded = refusalFeedback(refusing)
  const parts = [guarded, todos, checksFeedback].filter((p) => p.length > 0)
  const feedback = parts.length > 0 ? parts.flatMap((p, i) => (i > 0 ? ["", ...p] : p)).join("\n") : undefined
  if (status?.status === "BLOCKED")
    return done(
      { type: "pause", reason: `the model is blocked${status.recommendation ? `: ${status.recommendation}` : ""}` },
      { ...storyDone, snapshots, gotchas, lastProgress },
    )
  if (snapshot && !plan && stagnantRuns(snapshots) >= settings.stagnationLimit)
    return done(
      {
        type: "stop",
        reason: "stagnation",
        detail: `${settings.stagnationLimit} check runs in a row without fewer issues (stagnationLimit); still: ${unmet.join(", ") || "no change"}`,
      },
      { completionStreak, snapshots, gotchas, lastProgress },
    )

  if (turnClass.kind === "usage-limit") {
    // Waiting spends wall time: a loop out of its time (or token, cost) budget stops rather than waits.
    const spent = exceededSpend(loop, now)
    if (spent) return done({ type: "stop", reason: spent.reason, detail: spent.detail }, { ...storyDone })
    const wait = usageLimitWait(turnClass.error, loop.backoffs, settings, now)
    const detail = `the provider's usage limit (${turnClass.error.message})${wait.named ? "" : "; it named no reset time, so the loop backs off"}`
    return done(
      { type: "wait", wait: { reason: "usage-limit", until: wait.until, then: "resume" }, detail },
      { backoffs: loop.backoffs + 1, ...storyDone },
    )
  }

  if (turnClass.kind === "transient") {
    const breaker = recordIteration(
      loop.breaker,
      { progress: false, error: errorFingerprint(turnClass.error) },
      settings,
      now,
    )
    if (breaker.state === "OPEN") return breakerWait(loop, breaker, now, { ...storyDone })
    const delay = backoffDelayMs(turnClass.error, loop.backoffs, settings, now)
    return done(
      {
        type: "wait",
        wait: { reason: "backoff", until: now + delay, then: "resume" },
        detail: `the provider failed for a moment (${turnClass.error.message})`,
      },
      { breaker, backoffs: loop.backoffs + 1, ...storyDone, lastProgress: false },
    )
  }

  if (!settings.autoRestart)
    return plan
      ? done(
          {
            type: "pause",
            reason:
              `story ${loop.plan ? currentStory(loop.plan)?.id : ""} is done; autoRestart is off, so the ` +
              `next story waits for /ralph-resume`,
          },
          { ...storyDone, backoffs: 0, snapshots, gotchas, lastProgress },
        )
      : done({ type: "report-missing-promise" }, { completionStreak, backoffs: 0, lastProgress })

  const error = turnClass.kind === "failed" ? errorFingerprint(turnClass.error) : undefined
  const breaker = recordIteration(
    loop.breaker,
    { progress: lastProgress, error, failure: failureFingerprint(snapshot) },
    settings,
    now,
  )
  const update: LoopUpdate = {
    breaker,
    progress: measured.next,
    ...storyDone,
    backoffs: 0,
    snapshots,
    gotchas,
    lastProgress,
  }
  // A used-up budget stops at once: no cooldown is waited out for an iteration that may not come.
  // A story done now starts the next one's retries over.
  const breach = exceededBudget(plan ? { ...loop, plan } : loop, now)
  if (breach) return done({ type: "stop", reason: breach.reason, detail: breach.detail }, update)
  if (breaker.state === "OPEN") return breakerWait(loop, breaker, now, update)

  const fresh = turnClass.kind === "overflow"
  const blocked = blockedUntil(loop.calls, settings, now, callsToGoOn(loop, { then: "next", fresh }))
  if (blocked !== undefined)
    return done(
      {
        type: "wait",
        wait: { reason: "call-limit", until: blocked, then: "next", fresh },
        detail: `${settings.maxCallsPerHour} calls per window reached (maxCallsPerHour)`,
      },
      update,
    )

  const note = fresh
    ? turnClass.detail
    : turnClass.kind === "failed"
      ? `the last turn ended in an error: ${turnClass.error.message}`
      : undefined
  return done({ type: "restart", fresh, ...(note ? { note } : {}), ...(feedback ? { feedback } : {}) }, update)
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
