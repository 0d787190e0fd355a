import type { Hooks } from "@opencode-ai/plugin"
import type { RalphContext } from "../engine/context.js"

type ChatParamsHook = NonNullable<Hooks["chat.params"]>

/** Enough for the "OK" a control turn asks for, and a short sentence around it. */
export const CONTROL_MAX_OUTPUT_TOKENS = 64

/**
 * Caps the output of a control command's turn. Not for a reasoning model: its reasoning counts
 * against the same cap on several providers, and a cut-off turn would show as an empty reply.
 */
export const chatParamsHook =
  (ctx: RalphContext): ChatParamsHook =>
  async (input, output) => {
    if (input.agent === "title" || input.model.capabilities.reasoning) return
    if (!ctx.controlTurns.isControlMessage(input.sessionID, input.message.id)) return
    if (typeof output.maxOutputTokens === "number")
      output.maxOutputTokens = Math.min(output.maxOutputTokens, CONTROL_MAX_OUTPUT_TOKENS)
  }
