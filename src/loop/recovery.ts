// After OpenCode restarted (or was killed): how far a loop had come, read from its session, says
// how it goes on. Cut-off work goes on from its last step — never a second decision, summary or
// session for the same turn.
import { isDecided } from "./decide.js"
import type { Loop } from "./loop.js"
import type { Turn } from "./turn.js"

export type Recovery =
  /** A turn is under way: its idle decides. */
  | { type: "watch" }
  /** A restart was decided and cut off: it goes on from its last step. */
  | { type: "finish-restart" }
  /** The next iteration was counted, but its prompt is not in the session: it is sent again. */
  | { type: "reopen"; emptySession: boolean }
  /** The turn ended and was not acted on: it is decided (again, if a decision was cut off). */
  | { type: "decide"; again: boolean }
  /** The turn was cut off: the same iteration resumes. */
  | { type: "resume" }

export function decideRecovery(loop: Loop, session: { idle: boolean; turn: Turn; messageCount: number }): Recovery {
  const { idle, turn, messageCount } = session
  if (!idle) return { type: "watch" }
  const decided = isDecided(loop, turn)
  if (decided && loop.restart) return { type: "finish-restart" }
  if (messageCount === 0 || (decided && loop.lastDecision === "restart"))
    return { type: "reopen", emptySession: messageCount === 0 }
  if (turn.lastAssistantID !== undefined && !turn.interrupted && turn.error?.name !== "MessageAbortedError")
    return { type: "decide", again: decided }
  return { type: "resume" }
}
