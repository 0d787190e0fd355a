import type { Hooks } from "@opencode-ai/plugin"
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../context.js"
import { systemNote } from "../loop/prompts.js"

type SystemTransformHook = NonNullable<Hooks["experimental.chat.system.transform"]>

/** Adds the loop-mode note to the model calls of a loop's session, and of no other session (feature system-prompt). */
export const systemTransformHook =
  (ctx: RalphContext): SystemTransformHook =>
  async (input, output) => {
    if (!input.sessionID || !featureOn(ctx.settings.current, "system-prompt")) return
    const loop = ctx.manager.get(input.sessionID)
    // Not while the plugin summarizes: the compaction call runs in the same session.
    if (loop && (loop.phase === "running" || loop.phase === "deciding")) output.system.push(systemNote(loop))
  }
