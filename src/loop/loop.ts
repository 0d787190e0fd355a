// One Ralph loop: a task, where it lives now, where it lived before, how far it has come, and
// the state of the policies that keep it from running away.
import type { Settings } from "../config/schema.js"
import { closedBreaker, type Breaker } from "./breaker.js"
import { emptyCallWindow, type CallWindow } from "./call-window.js"
import type { DiagnosticSnapshot } from "./diagnostics.js"
import type { Gotcha } from "./gotchas.js"
import type { PlanState } from "../plan/plan.js"
import type { Turn } from "./turn.js"
import { emptyTurnEvents, type TurnEvents } from "./turn-events.js"

/** A loop keeps the settings it started with (later config edits apply to later loops). */
export type LoopSettings = Omit<Settings, "activation">

/**
 * running    — waiting for the model's turn in `sessionID` to end
 * deciding   — that turn ended; the plugin is reading it
 * restarting — the plugin is summarizing / creating / prompting (its own idles are ignored)
 * waiting    — a timer will continue the loop (back-off, breaker cooldown, call limit)
 * paused     — waiting for the user (Esc, STATUS: BLOCKED, or a failure the user must see)
 * stopped    — over, for `stopReason`
 */
export type LoopPhase = "running" | "deciding" | "restarting" | "waiting" | "paused" | "stopped"

export type StopReason =
  | "completed"
  | "retries-exhausted"
  | "max-iterations"
  | "token-budget"
  | "cost-budget"
  | "time-budget"
  | "auth-error"
  | "stagnation"
  | "cancelled"
  | "session-deleted"
  | "replaced"

export interface Usage {
  tokens: number
  cost: number
}

export interface Progress {
  /** Fingerprint of the git work tree after the last turn (undefined: not a git repo). */
  workTree?: string | undefined
  /** Completed todos of the current session after the last turn. */
  todosCompleted: number
  todosSession?: string
  /** Normalised hashes of recent assistant outputs. */
  recentOutputs: string[]
}

export interface Wait {
  reason: "backoff" | "breaker" | "call-limit"
  until: number
  /** What the timer does: resume the same turn (back-off: no iteration used) or start the next. */
  then: "resume" | "next"
  /** For "next": start it in a fresh session whatever the strategy. */
  fresh?: boolean
}

/** A restart decided and not finished yet: after a crash it goes on from where it stopped. */
export interface PendingRestart {
  /** A new session whatever the strategy (context overflow). */
  fresh: boolean
  note?: string
  feedback?: string
  /** The fresh session already created for it (reused instead of creating another). */
  sessionID?: string
}

export interface Loop {
  /** Stable id: the session the loop started in (with `-2`, `-3`… when an earlier loop from there still runs). */
  readonly id: string
  readonly task: string
  readonly settings: LoopSettings
  readonly startedAt: number
  /** The session the loop lives in now. */
  sessionID: string
  /** Sessions it lived in before, oldest first. */
  lineage: string[]
  /** 1-based number of the model turn under way (first prompt = 1). */
  iteration: number
  /** Restarts (continuations) sent so far. */
  retries: number
  phase: LoopPhase
  /** A busy status was seen for `sessionID` since the last prompt: the next idle is a real turn end. */
  sawBusy: boolean
  /** Counts busy statuses, so a decision can tell that the session started again meanwhile. */
  busyEpoch: number
  /** Counts messages written into the loop's session outside a pending decision (the user's): the plugin never acts on a turn the user has moved past. */
  userEpoch: number
  /** The first user message of the loop has not had the promise instruction appended yet. */
  needsInstruction: boolean
  /** The last assistant message a decision was made on (a second idle for it is a duplicate). */
  lastDecidedMessageID?: string
  /** What OpenCode reported for the current turn (errors, compaction, pending permissions). */
  turnEvents: TurnEvents
  breaker: Breaker
  calls: CallWindow
  /** Tokens and cost per session of the loop, recomputed from the messages. */
  usage: Record<string, Usage>
  progress: Progress
  /** Turns in a row that indicated completion (promise or STATUS: COMPLETE). */
  completionStreak: number
  /** Back-offs in a row (for the exponential delay). */
  backoffs: number
  wait?: Wait
  /** When the current iteration's prompt went out, and what was decided on the last turn (for the journal). */
  iterationStartedAt: number
  lastDecision?: string
  /** What failing checks taught the loop (seed 001), shown to later iterations on the same files. */
  gotchas: Gotcha[]
  /** HEAD when the loop began, to list the files it changed. */
  startHead?: string
  /** Check results of the loop, oldest first (the last 20). */
  snapshots: DiagnosticSnapshot[]
  /** The restart under way, from its decision until the next iteration's prompt is counted. */
  restart?: PendingRestart
  /** Earlier sessions (strategy `recreate`) still to be archived and deleted. */
  retiring: string[]
  /** Hints from /ralph-hint, added to the next prompt once. */
  hints: string[]
  /** /ralph-resume asked to go on now: the next idle goes on this way even without a new loop turn. */
  resumeRequested?: Pick<Wait, "then" | "fresh">
  /** A plan loop (/ralph --prd): its stories and which of them the plugin has marked done. */
  plan?: PlanState
  /** The last turn decided on: its model, agent and text carry over to the next prompt. */
  lastTurn?: Turn
  stopReason?: StopReason
  /** Why the loop stopped or paused, for the user. */
  detail?: string
}

export function newLoop(sessionID: string, task: string, settings: LoopSettings, now: number): Loop {
  return {
    id: sessionID,
    task,
    settings,
    startedAt: now,
    sessionID,
    lineage: [],
    iteration: 1,
    retries: 0,
    phase: "running",
    sawBusy: false,
    busyEpoch: 0,
    userEpoch: 0,
    needsInstruction: true,
    turnEvents: emptyTurnEvents(),
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
    iterationStartedAt: now,
  }
}

/** Turns the loop may run in all. */
export const maxIterations = (loop: Loop): number => Math.min(loop.settings.maxRetries + 1, loop.settings.maxIterations)

export const totalUsage = (loop: Loop): Usage =>
  Object.values(loop.usage).reduce((sum, u) => ({ tokens: sum.tokens + u.tokens, cost: sum.cost + u.cost }), { tokens: 0, cost: 0 })

/** The loop's own folders, relative to the project: never "work", never listed as changed files. */
export const ownFolders = (loop: Loop): string[] => [".opencode/", loop.settings.summaryPath.replace(/^\.\//, "").replace(/\/?$/, "/")]
