// The model's `<remember>` tags, read once per text part as it completes. The write happens beside
// the stream (never awaited here: the hook sits in OpenCode's streaming path). In a live loop's
// session they are staged for the loop (staging.ts); elsewhere they are remembered at once.
import type { Hooks } from "@opencode-ai/plugin"
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../engine/context.js"
import { isoDate, remember } from "../memory/memory-file.js"
import { rememberRequests, type RememberRequest } from "../memory/remember-tags.js"
import { settleStaged, stagedSource } from "../memory/staging.js"

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
    const loop = ctx.manager.get(sessionID)
    const live = loop && loop.phase !== "stopped" ? loop : undefined
    const item = (r: RememberRequest) =>
      live
        ? { section: "staging" as const, text: r.text, source: stagedSource(live.id, r.section) }
        : { section: r.section, text: r.text, source: "remember" }
    await ctx.memory.update((memory) =>
      requests
        .map(item)
        .reduce((m, i) => remember(m, i.section, { text: i.text, source: i.source, date }, max), memory),
    )
    // The loop ended while this was written (a tag in its last turn): settle what may have come too late for it.
    if (live?.phase === "stopped")
      await ctx.memory.update((m) => settleStaged(m, live.id, live.stopReason === "completed", date, max))
    ctx.api.log("info", live ? "staged for the loop from the model's text" : "remembered from the model's text", {
      session: sessionID,
      entries: requests.length,
    })
    const title = live ? "Ralph · staged until the loop completes" : "Ralph · remembered"
    ctx.api.toast(
      "info",
      title,
      requests
        .map((r) => `${r.section === "priority" ? "Priority: " : ""}${r.text}`)
        .join("\n")
        .slice(0, 300),
    )
  } catch (error) {
    ctx.api.log("warn", `could not write the project memory: ${String(error)}`, { session: sessionID })
  }
}
