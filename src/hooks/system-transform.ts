import type { Hooks } from "@opencode-ai/plugin"
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../engine/context.js"
import { systemNote } from "../loop/prompts.js"

type SystemTransformHook = NonNullable<Hooks["experimental.chat.system.transform"]>

/** The whole system prompt of a control command's turn (control-turns.ts). */
export const CONTROL_SYSTEM_PROMPT = 'You pass on messages of the Ralph loop plugin to the user: reply with just "OK".'

/**
 * The prompt of a session's turn carries OpenCode's <env> block; a title or compaction call's does
 * not (a title request can run beside the control turn's, in the same session).
 */
const isTurnPrompt = (system: string[]) => system.some((part) => part.includes("<env>"))

/**
 * Adds the loop-mode note to the model calls of a loop's session, and of no other session (feature
 * system-prompt); a control command's turn gets one line instead of the whole prompt.
 */
export const systemTransformHook =
  (ctx: RalphContext): SystemTransformHook =>
  async (input, output) => {
    if (!input.sessionID) return
    if (ctx.controlTurns.isControlRequest(input.sessionID) && isTurnPrompt(output.system)) {
      // In place: OpenCode keeps using this array.
      output.system.splice(0, output.system.length, CONTROL_SYSTEM_PROMPT)
      return
    }
    if (!featureOn(ctx.settings.current, "system-prompt")) return
    const loop = ctx.manager.get(input.sessionID)
    // Not while the plugin summarizes: the compaction call runs in the same session.
    if (loop && (loop.phase === "running" || loop.phase === "deciding")) output.system.push(systemNote(loop))
  }
