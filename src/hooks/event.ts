// The event hook sees every event of the instance. It updates the loops synchronously, in event
// order, and hands a claimed idle to the runner without waiting for it.
import type { Hooks } from "@opencode-ai/plugin"
import type { RalphContext } from "../context.js"
import { observe, type Observation, type RuntimeEvent } from "../opencode/events.js"

type EventHook = NonNullable<Hooks["event"]>

export const eventHook =
  (ctx: RalphContext): EventHook =>
  async ({ event }) => {
    const observation = observe(event as RuntimeEvent)
    if (observation) handle(ctx, observation)
  }

function handle(ctx: RalphContext, observation: Observation): void {
  const { manager } = ctx
  switch (observation.kind) {
    case "busy":
      ctx.controlTurns.busy(observation.sessionID)
      ctx.plans.onBusy(observation.sessionID)
      return manager.onBusy(observation.sessionID, observation.retry)
    case "idle": {
      ctx.controlTurns.idle(observation.sessionID)
      const loop = manager.takeIdle(observation.sessionID)
      if (loop) ctx.runner.onTurnEnded(loop)
      const request = ctx.plans.takeIdle(observation.sessionID)
      if (request) ctx.runner.onPlanTurnEnded(request)
      return
    }
    case "error":
      manager.onTurnEvent(observation.sessionID, { kind: "error", error: observation.error })
      return
    case "compacted":
    case "asked":
    case "answered":
      manager.onTurnEvent(observation.sessionID, observation)
      return
    case "session-created":
      if (!observation.parentID && ctx.settings.current.activation === "always") ctx.newSessions.add(observation.sessionID)
      return
    case "session-deleted": {
      ctx.newSessions.delete(observation.sessionID)
      ctx.controlTurns.forget(observation.sessionID)
      ctx.plans.finished(observation.sessionID)
      const loop = manager.sessionDeleted(observation.sessionID)
      if (loop) {
        ctx.runner.cancelTimer(loop)
        ctx.api.toast("warning", "Ralph · stopped", "The loop's session was deleted, so the loop ended.")
        ctx.api.log("info", "loop stopped: its session was deleted", { loop: loop.id })
      }
      return
    }
  }
}
