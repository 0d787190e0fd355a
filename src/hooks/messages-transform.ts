// A control command's turn (control-turns.ts) is sent as its control message alone, without tools;
// every other request goes as OpenCode built it.
import type { Hooks } from "@opencode-ai/plugin"
import type { RalphContext } from "../engine/context.js"

type MessagesTransformHook = NonNullable<Hooks["experimental.chat.messages.transform"]>

/**
 * `false` for every tool: OpenCode 1.18.33 sends a request only the tools whose name its user
 * message does not map to false, reading this very object (docs/opencode-notes.md). Built-in, plugin
 * and MCP tools alike, without having to know their names.
 */
const NO_TOOLS: Record<string, boolean> = new Proxy({}, { get: () => false })

export const messagesTransformHook =
  (ctx: RalphContext): MessagesTransformHook =>
  async (_input, output) => {
    const messages = output.messages
    const index = messages.findLastIndex((m) => m.info.role === "user")
    const last = messages[index]?.info
    if (last?.role !== "user") return
    const control = ctx.controlTurns.isControlMessage(last.sessionID, last.id)
    ctx.controlTurns.preparing(last.sessionID, control)
    if (!control) return
    // In place: OpenCode goes on with this array (a new one would be ignored).
    messages.splice(0, index)
    last.tools = NO_TOOLS
  }
