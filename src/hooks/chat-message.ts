// Every user message passes here before it is stored. The first message of a loop gets the promise
// instruction (seed 000, step 0); with activation "always" a new session's first message starts a
// loop; a message in a paused loop's session resumes it.
import type { Hooks } from "@opencode-ai/plugin"
import type { Part, TextPart } from "@opencode-ai/sdk"
import { startLoop } from "../actions/start-loop.js"
import { CONTROL_MARKER } from "../commands/definitions.js"
import type { RalphContext } from "../context.js"
import type { Loop } from "../loop/loop.js"
import { loopRules } from "../loop/prompts.js"
import { loopMemorySection } from "../memory/relevance.js"
import { newPartID } from "../opencode/part-id.js"

type ChatMessageHook = NonNullable<Hooks["chat.message"]>

export const chatMessageHook =
  (ctx: RalphContext): ChatMessageHook =>
  async (input, output) => {
    ctx.settings.showUnseen()
    const sessionID = input.sessionID
    const isControl = output.parts.some((p) => p.type === "text" && p.text.startsWith(CONTROL_MARKER))
    ctx.controlTurns.messageCreated(sessionID, output.message.id, isControl)
    const isNewSession = ctx.newSessions.delete(sessionID)
    let loop = ctx.manager.get(sessionID)
    if (!loop && isNewSession && ctx.settings.current.activation === "always" && ctx.settings.reload().activation === "always") {
      const task = userText(output.parts)
      if (task) loop = await startLoop(ctx, sessionID, task)
    }
    if (!loop) return
    // A control command's own message (/ralph-status …) neither resumes a loop nor gets the rules.
    if (isControl) return
    if (!loop.needsInstruction) ctx.manager.onUserMessage(loop)
    if (ctx.manager.resume(loop, ctx.now())) {
      ctx.runner.cancelTimer(loop)
      ctx.api.toast("info", "Ralph · resumed", `Loop resumed at iteration ${loop.iteration}.`)
    }
    if (loop.needsInstruction) {
      ctx.manager.instructionGiven(loop)
      const memory = await memoryForFirstPrompt(ctx, loop)
      const part: TextPart = {
        id: newPartID(),
        sessionID: output.message.sessionID,
        messageID: output.message.id,
        type: "text",
        text: `\n\n${loopRules(loop.settings, loop.plan)}${memory ? `\n\n${memory}` : ""}`,
        synthetic: true,
      }
      output.parts.push(part)
    }
  }

function userText(parts: Part[]): string {
  return parts
    .filter((p): p is TextPart => p.type === "text" && !p.synthetic && !p.ignored)
    .map((p) => p.text)
    .join("\n")
    .trim()
}

/** What the project memory holds for a loop's task, for its first prompt (never throws). */
async function memoryForFirstPrompt(ctx: RalphContext, loop: Loop): Promise<string | undefined> {
  if (loop.settings.memoryBudgetChars === 0) return undefined
  try {
    return loopMemorySection(await ctx.memory.read(), loop)
  } catch (error) {
    ctx.api.log("warn", `could not read the project memory: ${String(error)}`, { loop: loop.id })
    return undefined
  }
}
