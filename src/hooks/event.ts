// The event hook sees every event of the instance. It updates the loops (and what the continuations
// know of sessions without a loop) synchronously, in event order, and hands a claimed idle to the
// runner without waiting for it. OpenCode calls it for every event of every session: it does its
// work synchronously, catches its own errors and returns one shared resolved promise (no wrapper, no
// allocation for an event it does not observe).
import type { Hooks } from "@opencode-ai/plugin"
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../engine/context.js"
import { observe, type Observation, type RuntimeEvent } from "../host/events.js"

type EventHook = NonNullable<Hooks["event"]>

const DONE = Promise.resolve()

export const eventHook =
  (ctx: RalphContext): EventHook =>
  ({ event }) => {
    try {
      const observation = observe(event as RuntimeEvent)
      if (observation) handle(ctx, observation)
    } catch (error) {
      ctx.api.log(
        "error",
        `hook event failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      )
    }
    return DONE
  }

function handle(ctx: RalphContext, observation: Observation): void {
  const { manager, continuations } = ctx
  // A loop's review session is the plugin's own: nothing that happens in it is a loop's or a continuation's business.
  if (
    "sessionID" in observation &&
    manager.isReviewSession(observation.sessionID) &&
    observation.kind !== "session-deleted"
  )
    return
  switch (observation.kind) {
    case "busy":
      continuations.onBusy(observation.sessionID)
      ctx.controlTurns.busy(observation.sessionID)
      ctx.plans.onBusy(observation.sessionID)
      return manager.onBusy(observation.sessionID, observation.retry)
    case "idle": {
      ctx.controlTurns.idle(observation.sessionID)
      // Taken by both, so a turn end a loop decided is never looked at again once the loop is over.
      const turnEnded = continuations.takeIdle(observation.sessionID, observation.via)
      const loop = manager.takeIdle(observation.sessionID)
      if (loop) ctx.runner.onTurnEnded(loop)
      else if (turnEnded && !manager.find(observation.sessionID) && continuationsOn(ctx))
        ctx.runner.onPlainIdle(observation.sessionID, ctx.settings.current)
      const request = ctx.plans.takeIdle(observation.sessionID)
      if (request) ctx.runner.onPlanTurnEnded(request)
      return
    }
    case "error":
      manager.onTurnEvent(observation.sessionID, { kind: "error", error: observation.error })
      continuations.onTurnEvent(observation.sessionID, { kind: "error", error: observation.error })
      return
    case "compacted":
    case "asked":
    case "answered":
      manager.onTurnEvent(observation.sessionID, observation)
      continuations.onTurnEvent(observation.sessionID, observation)
      return
    case "session-created":
      continuations.sessionCreated(observation.sessionID, observation.parentID)
      if (!observation.parentID && ctx.settings.current.activation === "always")
        ctx.newSessions.add(observation.sessionID)
      return
    case "session-deleted": {
      ctx.newSessions.delete(observation.sessionID)
      continuations.sessionDeleted(observation.sessionID)
      ctx.controlTurns.forget(observation.sessionID)
      ctx.plans.finished(observation.sessionID)
      const loop = manager.sessionDeleted(observation.sessionID)
      if (loop) {
        ctx.api.toast("warning", "Ralph · stopped", "The loop's session was deleted, so the loop ended.")
        ctx.api.log("info", "loop stopped: its session was deleted", { loop: loop.id })
      }
      return
    }
  }
}

const continuationsOn = (ctx: RalphContext): boolean =>
  featureOn(ctx.settings.current, "todo-continuation") || featureOn(ctx.settings.current, "auto-continue")
