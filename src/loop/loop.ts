// One Ralph loop: a task, where it lives now, where it lived before, and how far it has come.
import type { Settings, Strategy } from "../config/schema.js"

export type LoopSettings = Pick<Settings, "promiseWord" | "maxRetries" | "strategy" | "autoRestart" | "summaryPath">

/**
 * running    — waiting for the model's turn in `sessionID` to end
 * deciding   — that turn ended; the plugin is reading it
 * restarting — the plugin is summarizing / creating / prompting (its own idles are ignored)
 * paused     — waiting for the user (Esc, or a failure the user must see)
 * stopped    — over, for `stopReason`
 */
export type LoopPhase = "running" | "deciding" | "restarting" | "paused" | "stopped"

export type StopReason = "completed" | "retries-exhausted" | "cancelled" | "session-deleted" | "replaced"

export interface Loop {
  /** Stable id: the session the loop started in. */
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
  /** The first user message of the loop has not had the promise instruction appended yet. */
  needsInstruction: boolean
  /** The last assistant message a decision was made on (a second idle for it is a duplicate). */
  lastDecidedMessageID?: string
  stopReason?: StopReason
  pauseReason?: string
}

/** Turns the loop may run in all: the first prompt plus one per restart. */
export const maxIterations = (loop: Loop): number => loop.settings.maxRetries + 1

export const isLive = (loop: Loop): boolean => loop.phase !== "stopped"

export const strategyOf = (loop: Loop): Strategy => loop.settings.strategy
