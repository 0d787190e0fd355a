// `ralph-loop run`'s exit status: one code per class of ending, so a script can tell "done" from
// "gave up" from "broken" (docs/headless.md lists them). Pure.
import type { StopReason } from "../../loop/loop.js"

export const EXIT = {
  /** The loop completed: its promise (or gate, checks, review) accepted the work. */
  completed: 0,
  /**
   * The runner itself failed: OpenCode not found or not starting, the plugin not installed or not loaded, the server
   * died.
   */
  runnerFailure: 1,
  /** The command line (or the /ralph arguments) was wrong; nothing ran. */
  usage: 2,
  /** A limit was reached: retries, iterations, tokens, cost or time. */
  limit: 3,
  /** The loop gave up on its own judgement: stagnation, or the reviewer's rejections. */
  gaveUp: 4,
  /** The provider refused the credentials. */
  auth: 5,
  /** The loop paused for a person (the model said it is blocked, a story waits for /ralph-resume, …). */
  paused: 6,
  /** A --story loop completed but its branch ralph/story-<id> was not made: its work is only in this work tree. */
  storyNotCommitted: 7,
  /** --require-verified: the loop completed, but its evidence is not verified (the replay, a check, none ran). */
  notVerified: 8,
  /**
   * Interrupted: SIGINT/SIGTERM (the loop paused or cancelled), or the loop was cancelled or its session deleted from
   * elsewhere.
   */
  interrupted: 130,
} as const

export type ExitClass = keyof typeof EXIT

/** How a run ended, as far as the exit status cares. */
export type Ending =
  | { kind: "stopped"; reason: StopReason }
  | { kind: "paused" }
  | { kind: "story-not-committed" }
  | { kind: "not-verified" }
  | { kind: "interrupted" }
  | { kind: "usage" }
  | { kind: "runner-failure" }

const BY_REASON: Record<StopReason, ExitClass> = {
  completed: "completed",
  "retries-exhausted": "limit",
  "max-iterations": "limit",
  "token-budget": "limit",
  "cost-budget": "limit",
  "time-budget": "limit",
  stagnation: "gaveUp",
  review: "gaveUp",
  "auth-error": "auth",
  cancelled: "interrupted",
  "session-deleted": "interrupted",
  replaced: "interrupted",
}

function exitClass(ending: Ending): ExitClass {
  switch (ending.kind) {
    case "stopped":
      return BY_REASON[ending.reason]
    case "paused":
      return "paused"
    case "story-not-committed":
      return "storyNotCommitted"
    case "not-verified":
      return "notVerified"
    case "interrupted":
      return "interrupted"
    case "usage":
      return "usage"
    case "runner-failure":
      return "runnerFailure"
  }
}

export const exitCode = (ending: Ending): number => EXIT[exitClass(ending)]
