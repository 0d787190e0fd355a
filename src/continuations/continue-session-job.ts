// A turn of a session without a loop ended: once it settled, the continuations outside /ralph look
// at it — auto-continue first (errors the fast checks report after a turn that changed files), then
// todo-continuation (open todos, after a countdown). At most one prompt per turn end, never in a
// subagent's session or one a loop lives in, and none once the user or the session moved on.
import { featureOn } from "../config/features.js"
import type { Settings } from "../config/schema.js"
import { classify } from "../loop/classify.js"
import { emptyTurnEvents } from "../loop/turn-events.js"
import { isControlMessage, readTurn, type MessageWithParts } from "../loop/read-turn.js"
import { io, type Job } from "../effects/kernel.js"
import { log } from "../effects/jobs.js"
import { autoContinue } from "./auto-continue-job.js"
import type { Moment } from "./watch.js"
import type { ContinuationJobContext } from "./job-context.js"
import { todoContinuation } from "./todo-continuation-job.js"

/** Still ours to continue: nothing happened since the turn ended, and no loop lives in the session. */
export type Still = () => boolean

/**
 * A turn of a session without a loop ended: what it is when it ends (the moment, the settings), and
 * the job that looks at it once it settled (`settleMs` later; the host holds only a timer meanwhile:
 * this happens at every such turn end, and a job waiting out the settle cost many times more).
 * Undefined when neither continuation is on. `settings` are the event path's (no look at the files:
 * this runs at every turn end of every session without a loop).
 */
export function afterIdle(
  ctx: ContinuationJobContext,
  sessionID: string,
  settings: Settings,
): { settleMs: number; job: () => Job } | undefined {
  const moment = ctx.continuations.moment(sessionID)
  const todoOn = featureOn(settings, "todo-continuation")
  const autoOn = featureOn(settings, "auto-continue")
  if (!todoOn && !autoOn) return undefined
  return { settleMs: settings.settleMs, job: () => settled(ctx, sessionID, moment, todoOn, autoOn) }
}

function* settled(
  ctx: ContinuationJobContext,
  sessionID: string,
  moment: Moment,
  todoOn: boolean,
  autoOn: boolean,
): Job {
  const watch = ctx.continuations
  const still: Still = () => watch.unchanged(sessionID, moment) && !hasLoop(ctx, sessionID)
  const skip = (why: string) => log("debug", `${sessionID} not continued: ${why}`)
  try {
    if (!still()) return yield* skip("it moved on")
    if (!(yield* isTopLevel(ctx, sessionID))) return yield* skip("a subagent's session")
    const messages = yield* io({ kind: "messages", sessionID })
    if (!still()) return yield* skip("it moved on")
    if (endsWithCommand(messages)) return yield* skip("a command's turn")
    const turn = readTurn(messages)
    if (!watch.decide(sessionID, turn.lastAssistantID)) return yield* skip("no new reply")
    const kind = classify(turn, watch.get(sessionID)?.turnEvents ?? emptyTurnEvents()).kind
    if (kind !== "finished") return yield* log("info", `${sessionID} not continued: the turn ended ${kind}`)
    if (autoOn && (yield* autoContinue(ctx, sessionID, turn, still))) return
    if (todoOn) yield* todoContinuation(ctx, sessionID, turn, still)
  } catch (error) {
    yield {
      kind: "log",
      level: "warn",
      message: `continuation of ${sessionID} failed: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    }
  }
}

/** A loop lives in the session, lived there, or is about to move there: the loop owns its turns. */
function hasLoop(ctx: ContinuationJobContext, sessionID: string): boolean {
  return ctx.manager.owns(sessionID)
}

/** Not a subagent's session (asked once per session, unless session.created said). */
function* isTopLevel(ctx: ContinuationJobContext, sessionID: string): Job<boolean> {
  const known = ctx.continuations.get(sessionID)?.parentID
  if (known !== undefined) return known === null
  const session = yield* io({ kind: "session", sessionID })
  ctx.continuations.parentKnown(sessionID, session.parentID)
  return !session.parentID
}

/** The last user message is a command's (/ralph-status, /cancel-ralph …): its turn is not work to continue. */
function endsWithCommand(messages: readonly MessageWithParts[]): boolean {
  const lastUser = messages.findLast((m) => m.info.role === "user")
  return lastUser !== undefined && isControlMessage(lastUser)
}
