// The model's `<remember>` tags, read once per text part as it completes. The write happens beside
// the stream (never awaited here: the hook sits in OpenCode's streaming path).
import type { Hooks } from "@opencode-ai/plugin"
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../context.js"
import { isoDate, remember } from "../memory/memory-file.js"
import { rememberRequests, type RememberRequest } from "../memory/remember-tags.js"

type TextCompleteHook = NonNullable<Hooks["experimental.text.complete"]>

export const textCompleteHook =
  (ctx: RalphContext): TextCompleteHook =>
  async (input, output) => {
    if (!featureOn(ctx.settings.current, "remember")) return
    const requests = rememberRequests(output.text)
    if (requests.length > 0) void rememberFromModel(ctx, input.sessionID, requests)
  }

async function rememberFromModel(ctx: RalphContext, sessionID: string, requests: RememberRequest[]): Promise<void> {
  try {
    // Only top-level sessions: a subagent's notes are its own.
    if ((await ctx.api.session(sessionID)).parentID) return
    const date = isoDate(ctx.now())
    const max = ctx.settings.current.memoryMaxEntries
    await ctx.memory.update((memory) => requests.reduce((m, r) => remember(m, r.section, { text: r.text, source: "remember", date }, max), memory))
    ctx.api.log("info", "remembered from the model's text", { session: sessionID, entries: requests.length })
    ctx.api.toast("info", "Ralph · remembered", requests.map((r) => `${r.section === "priority" ? "Priority: " : ""}${r.text}`).join("\n").slice(0, 300))
  } catch (error) {
    ctx.api.log("warn", `could not write the project memory: ${String(error)}`, { session: sessionID })
  }
}
