import type { Hooks } from "@opencode-ai/plugin"
import type { RalphContext } from "../engine/context.js"
import { RALPH_SUMMARY_INSTRUCTIONS } from "../loop/handoff.js"

type CompactingHook = NonNullable<Hooks["experimental.session.compacting"]>

/** When the loop summarizes a session for the next one, the summary is asked to be a handoff. */
export const compactingHook =
  (ctx: RalphContext): CompactingHook =>
  async (input, output) => {
    // The summary must see the whole history, also if a control turn is under way there.
    ctx.controlTurns.forget(input.sessionID)
    const loop = ctx.manager.get(input.sessionID)
    if (loop && loop.phase !== "stopped") output.context.push(RALPH_SUMMARY_INSTRUCTIONS)
  }
