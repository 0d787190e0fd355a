import type { Hooks } from "@opencode-ai/plugin"
import type { RalphContext } from "../engine/context.js"

type AutocontinueHook = NonNullable<Hooks["experimental.compaction.autocontinue"]>

/**
 * While a loop is active, the loop owns continuation: OpenCode's own "continue" after an automatic
 * compaction is switched off, so one idle never gets two continuations.
 */
export const compactionAutocontinueHook =
  (ctx: RalphContext): AutocontinueHook =>
  async (input, output) => {
    const loop = ctx.manager.onTurnEvent(input.sessionID, { kind: "compacted" })
    if (!loop) return
    output.enabled = false
    ctx.api.log("info", "compaction in a loop session: OpenCode's auto-continue is left to the loop", { loop: loop.id })
  }
