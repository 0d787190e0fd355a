// One Ralph loop: a task, where it lives now, where it lived before, how far it has come, and
// the state of the policies that keep it from running away. What is kept on disk is a zod schema
// composed of its owners' schemas (the type follows from it); what only the running process knows
// is `LoopRuntime`, never written.
import { replaySchema } from "../evidence/replay-record.js"
import { acceptedSchema, refusedAcceptSchema } from "../evidence/accepted.js"
import { z } from "zod"
import { settingSchemas } from "../config/schema.js"
import { sessionIDSchema } from "../host/session-id.js"
import { breakerSchema, closedBreaker } from "./breaker.js"
import { callWindowSchema, emptyCallWindow } from "./call-window.js"
import { fileHashesSchema } from "./changed-files.js"
import { diagnosticSnapshotSchema, type DiagnosticSnapshot } from "../checks/diagnostics.js"
import { gotchaSchema } from "./gotchas.js"
import { progressSchema } from "./progress.js"
import { turnSchema } from "./turn.js"
import { planStateSchema } from "../plan/plan.js"
import type { ResumeHow } from "./go-on.js"
import { targetsOf } from "./targets.js"
import { iterationLimit } from "./limits.js"
import { reviewStateSchema } from "./review-state.js"
import { emptyTurnEvents, type TurnEvents } from "./turn-events.js"
import { evidenceSchema, weakenedSchema } from "../evidence/record.js"

export { ownFolders } from "../project/own-files.js"

/** A loop keeps the settings it started with (later config edits apply to later loops). */
export const loopSettingsSchema = z.object(settingSchemas).omit({ activation: true })
export type LoopSettings = z.infer<typeof loopSettingsSchema>

/**
 * running    — waiting for the model's turn in `sessionID` to end
 * deciding   — that turn ended; the plugin is reading it
 * restarting — the plugin is summarizing / creating / prompting (its own idles are ignored)
 * waiting    — a timer will continue the loop (usage limit, back-off, breaker cooldown, call limit)
 * paused     — waiting for the user (Esc, STATUS: BLOCKED, or a failure the user must see)
 * stopped    — over, for `stopReason`
 */
/**
 * What paused a loop: a person (/ralph-pause, `ralph-loop pause`, a message in its session), a
 * runner's interrupt (SIGINT, SIGTERM, SIGHUP), a rollback, the recovery at OpenCode's start
 * (resumeOnStart "ask"), or the loop itself, waiting for a person (the model is blocked, a failure).
 */
const pauseCauseSchema = z.enum(["person", "interrupt", "rollback", "recovery", "loop"])
export type PauseCause = z.infer<typeof pauseCauseSchema>

const loopPhaseSchema = z.enum(["running", "deciding", "restarting", "waiting", "paused", "stopped"])
export type LoopPhase = z.infer<typeof loopPhaseSchema>

export const stopReasonSchema = z.enum([
  "completed",
  "retries-exhausted",
  "max-iterations",
  "token-budget",
  "cost-budget",
  "time-budget",
  "auth-error",
  "stagnation",
  "cancelled",
  "session-deleted",
  "replaced",
  "review",
])
export type StopReason = z.infer<typeof stopReasonSchema>

const usageSchema = z.object({ tokens: z.number().min(0), cost: z.number().min(0) })
export type Usage = z.infer<typeof usageSchema>

const waitSchema = z.object({
  /** usage-limit: the provider's limit, until the reset it names (or a back-off); no retry, no breaker. */
  reason: z.enum(["backoff", "breaker", "call-limit", "usage-limit"]),
  until: z.number(),
  /** What the timer does: resume the same turn (back-off: no iteration used) or start the next. */
  then: z.enum(["resume", "next"]),
  /** For "next": start it in a fresh session whatever the strategy. */
  fresh: z.boolean().optional(),
})
export type Wait = z.infer<typeof waitSchema>

/** A restart decided and not finished yet: after a crash it goes on from where it stopped. */
const pendingRestartSchema = z.object({
  /** A new session whatever the strategy (context overflow). */
  fresh: z.boolean(),
  note: z.string().optional(),
  feedback: z.string().optional(),
  /** The fresh session already created for it (reused instead of creating another). */
  sessionID: sessionIDSchema.optional(),
})
export type PendingRestart = z.infer<typeof pendingRestartSchema>

const count = z.int().min(0)

/** What a loop is on disk. */
export const loopStateSchema = z.object({
  /** Stable id: the session the loop started in (with `-2`, `-3`… when an earlier loop from there still runs). */
  id: sessionIDSchema,
  task: z.string().min(1),
  settings: loopSettingsSchema,
  startedAt: z.number(),
  /** The session the loop lives in now. */
  sessionID: sessionIDSchema,
  /** Sessions it lived in before, oldest first. */
  lineage: z.array(sessionIDSchema),
  /** 1-based number of the model turn under way (first prompt = 1). */
  iteration: z.int().min(1),
  /** Restarts (continuations) sent so far, over the whole loop (a plan's current story's: `taskRetries`). */
  retries: count,
  phase: loopPhaseSchema,
  /** The first user message of the loop has not had the promise instruction appended yet. */
  needsInstruction: z.boolean(),
  /** The last assistant message a decision was made on (a second idle for it is a duplicate). */
  lastDecidedMessageID: z.string().optional(),
  breaker: breakerSchema,
  calls: callWindowSchema,
  /** Tokens and cost per session of the loop, recomputed from the messages. */
  usage: z.record(z.string(), usageSchema),
  progress: progressSchema,
  /** Turns in a row that indicated completion (promise or STATUS: COMPLETE). */
  completionStreak: count,
  /** Back-offs in a row (for the exponential delay). */
  backoffs: count,
  /** Hints from /ralph-hint, added to the next prompt once. */
  hints: z.array(z.string()),
  /** Check results of the loop, oldest first (the last 20). */
  snapshots: z.array(diagnosticSnapshotSchema),
  /** A loop started with its criteria: what its checks found before the first prompt (seed 004's "Initial"). */
  initialChecks: diagnosticSnapshotSchema.optional(),
  /** HEAD when the loop began, to list the files it changed. */
  startHead: z.string().optional(),
  /**
   * The files that already differed from HEAD when the loop began, by content hash: the user's own
   * uncommitted work is not the loop's (changed-files.ts).
   */
  startFiles: fileHashesSchema.optional(),
  /** The work tree when the loop began, as a git tree (every file): what differs from it now is the loop's. */
  startTree: z.string().optional(),
  /** Why the work tree at the loop's start could not be read: nothing is then credited to the loop to commit. */
  startUnknown: z.string().optional(),
  /** The `@path`s of the task: what the loop measures is scoped to them (empty: the whole project). */
  targets: z.array(z.string()),
  /** When the current iteration's prompt went out, and what was decided on the last turn (for the journal). */
  iterationStartedAt: z.number(),
  lastDecision: z.string().optional(),
  /** Whether the last decided turn made progress as the breaker counts it — a completing turn too (for the journal). */
  lastProgress: z.boolean().optional(),
  /** What failing checks taught the loop (seed 001), shown to later iterations on the same files. */
  gotchas: z.array(gotchaSchema),
  wait: waitSchema.optional(),
  /** The last turn decided on: its model, agent and text carry over to the next prompt. */
  lastTurn: turnSchema.optional(),
  /** The restart under way, from its decision until the next iteration's prompt is counted. */
  restart: pendingRestartSchema.optional(),
  /** Earlier sessions (strategy `recreate`) still to be archived and deleted. */
  retiring: z.array(sessionIDSchema),
  /** A plan loop (/ralph --prd): its stories and which of them the plugin has marked done. */
  plan: planStateSchema.optional(),
  /** Its reviews (review on): rejections in a row, their cost, the last verdict. */
  review: reviewStateSchema.optional(),
  /**
   * What the guard found at the last claim of done it read (issue 39): each finding, and whether the user accepted it.
   */
  guard: z
    .object({
      iteration: z.int().min(1),
      findings: z.array(weakenedSchema),
      /** The replay of the start's tests at that claim (issue 46; absent: none ran). */
      replay: replaySchema.optional(),
      /** Changed expectations refused once (expectationKey): claimed again, they no longer refuse. */
      refusedExpectations: z.array(z.string()).optional(),
    })
    .optional(),
  /** What the user accepted while it ran (ralph-loop accept, the TUI): the next claims are judged with it. */
  accepted: z.array(acceptedSchema).optional(),
  /** Accepts refused because a model's shell ran them (the newest REFUSED_ACCEPTS_KEPT). */
  refusedAccepts: z.array(refusedAcceptSchema).optional(),
  /** What its completion rested on (issue 39): the checks after the last change, the files, the review, the guard. */
  evidence: evidenceSchema.optional(),
  stopReason: stopReasonSchema.optional(),
  /** Why the loop stopped or paused, for the user. */
  detail: z.string().optional(),
  /** What paused it (while paused): `ralph-loop run` acts on a pause by its cause (docs/headless.md). */
  pauseCause: pauseCauseSchema.optional(),
})
export type LoopState = z.infer<typeof loopStateSchema>

/** What only the running process knows: a restarted OpenCode starts these over. */
export interface LoopRuntime {
  /** A busy status was seen for `sessionID` since the last prompt: the next idle is a real turn end. */
  sawBusy: boolean
  /** Counts busy statuses, so a decision can tell that the session started again meanwhile. */
  busyEpoch: number
  /**
   * Counts messages written into the loop's session outside a pending decision (the user's): the plugin never acts on a
   * turn the user has moved past.
   */
  userEpoch: number
  /** What OpenCode reported for the current turn (errors, compaction, pending permissions). */
  turnEvents: TurnEvents
  /**
   * /ralph-resume asked to go on now: the next idle goes on this way even without a new loop turn
   * (`recover`: from where the loop's session shows it stopped, as after a restart of OpenCode).
   */
  resumeRequested?: ResumeHow
  /** Taken back after a restart of OpenCode with resumeOnStart "ask": /ralph-resume goes on as recovery would have. */
  recoveryPending?: boolean
  /** The current iteration is counted and its prompt has not gone out yet: a stop now takes the count back. */
  iterationUnsent?: boolean
  /**
   * The checks a ralph_done call ran, with the work tree they saw and the message that called: the
   * turn's end reuses them when that call is the turn's claim and the work tree has not changed since.
   */
  judgedClaim?: { messageID: string; workTree: string; snapshot: DiagnosticSnapshot | undefined }
}

/** What never changes in a loop. */
type Fixed = "id" | "task" | "settings" | "startedAt"

export interface Loop extends Readonly<Pick<LoopState, Fixed>>, Omit<LoopState, Fixed>, LoopRuntime {}

const runtimeStart = (): LoopRuntime => ({ sawBusy: false, busyEpoch: 0, userEpoch: 0, turnEvents: emptyTurnEvents() })

/** A loop taken back from its state (after a restart of OpenCode): the runtime part starts over. */
export const loopFromState = (state: LoopState): Loop => ({ ...state, ...runtimeStart() })

/** The part of a loop that is written to disk. */
export function stateOf(loop: Loop): LoopState {
  const {
    sawBusy: _sawBusy,
    busyEpoch: _busyEpoch,
    userEpoch: _userEpoch,
    turnEvents: _turnEvents,
    resumeRequested: _resumeRequested,
    recoveryPending: _recoveryPending,
    iterationUnsent: _iterationUnsent,
    judgedClaim: _judgedClaim,
    ...state
  } = loop
  return state
}

export function newLoop(sessionID: string, task: string, settings: LoopSettings, now: number): Loop {
  return loopFromState({
    id: sessionID,
    task,
    settings,
    startedAt: now,
    sessionID,
    lineage: [],
    iteration: 1,
    retries: 0,
    phase: "running",
    needsInstruction: true,
    breaker: closedBreaker(),
    calls: emptyCallWindow(),
    usage: {},
    progress: { todosCompleted: 0, recentOutputs: [] },
    completionStreak: 0,
    backoffs: 0,
    hints: [],
    retiring: [],
    snapshots: [],
    gotchas: [],
    targets: targetsOf(task),
    iterationStartedAt: now,
  })
}

/**
 * Turns the loop may run in all: a plan's, maxIterations; another's, its first turn and maxRetries restarts
 * (limits.ts).
 */
export const maxIterations = (loop: {
  settings: Pick<LoopSettings, "maxRetries" | "maxIterations">
  plan?: unknown
}): number => iterationLimit(loop.settings, loop.plan !== undefined)

/** Everything the loop has used: its sessions and its reviews (budgets count both). */
export const totalUsage = (loop: Pick<Loop, "usage" | "review">): Usage =>
  [...Object.values(loop.usage), ...(loop.review ? [loop.review.usage] : [])].reduce(
    (sum, u) => ({ tokens: sum.tokens + u.tokens, cost: sum.cost + u.cost }),
    { tokens: 0, cost: 0 },
  )
