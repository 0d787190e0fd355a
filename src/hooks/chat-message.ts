// Every user message passes here before it is stored. The first message of a loop gets the promise
// instruction (seed 000, step 0); a typed message starting with a keyword ("ralph: …") or, with
// activation "always", a new session's first message starts a loop; a message in a paused loop's
// session resumes it; a typed message in a session without a loop resets its continuations. A TUI
// command typed with arguments ("/ralph-pause now") is that command, acted on here.
import type { Hooks } from "@opencode-ai/plugin"
import type { Part, TextPart } from "@opencode-ai/sdk"
import { startLoop } from "../engine/start-loop.js"
import { runControl } from "../commands/control.js"
import { CONTROL_MARKER, isControlCommand, isMemoryCommand } from "../host/commands.js"
import { runMemoryCommand } from "../commands/memory-commands.js"
import { startFromCommand } from "../commands/start.js"
import { replaceText } from "../commands/text.js"
import { typedCommand, type TypedCommand } from "../commands/typed-command.js"
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../engine/context.js"
import { keywordArguments } from "../continuations/keyword.js"
import { isContinuationText } from "../continuations/texts.js"
import type { Loop } from "../loop/loop.js"
import { loopRules } from "../loop/prompts.js"
import { loopMemorySection } from "../memory/relevance.js"
import { newPartID } from "../host/part-id.js"

type ChatMessageHook = NonNullable<Hooks["chat.message"]>

export const chatMessageHook =
  (ctx: RalphContext): ChatMessageHook =>
  async (input, output) => {
    ctx.settings.showUnseen()
    const sessionID = input.sessionID
    // A loop's review session: its prompt is the plugin's own, never a loop's start.
    if (ctx.manager.isReviewSession(sessionID)) return void ctx.newSessions.delete(sessionID)
    const isControl = output.parts.some((p) => p.type === "text" && p.text.startsWith(CONTROL_MARKER))
    const isNewSession = ctx.newSessions.delete(sessionID)
    let loop = ctx.manager.get(sessionID)
    const text = userText(output.parts)
    const command = isControl || loop?.needsInstruction ? undefined : typedCommand(text)
    if (command) {
      // Acted on as the server's command would be; its message becomes a control message, so it
      // neither resumes nor counts as the user's, and its turn is the cheap control turn.
      await runTypedCommand(ctx, sessionID, command, output.parts)
      ctx.controlTurns.commandRewritten(sessionID)
      ctx.controlTurns.messageCreated(sessionID, output.message.id, true)
      return
    }
    ctx.controlTurns.messageCreated(sessionID, output.message.id, isControl)
    // Typed by the user: text of their own (OpenCode's synthetic "continue" has none), not a command's
    // message (/ralph's first message, a control command), not the plugin's own continuation.
    const typed = text !== "" && !loop?.needsInstruction && !isControl && !isContinuationText(text)
    // In a session without a loop, their message starts the continuations' counts over.
    if (typed && !loop) ctx.continuations.onUserMessage(sessionID)
    const keyword =
      typed && featureOn(ctx.settings.current, "keyword")
        ? keywordArguments(text, ctx.settings.current.keywords)
        : undefined
    if (keyword !== undefined) {
      await startFromCommand(ctx, sessionID, keyword, output.parts, text)
      loop = ctx.manager.get(sessionID)
    } else if (
      !loop &&
      isNewSession &&
      ctx.settings.current.activation === "always" &&
      ctx.settings.reload().activation === "always"
    ) {
      if (text) loop = await startLoop(ctx, sessionID, text)
    }
    if (!loop) {
      if (typed && featureOn(ctx.settings.current, "auto-continue")) ctx.runner.captureBaseline(sessionID)
      return
    }
    // A control command's own message (/ralph-status …) neither resumes a loop nor gets the rules.
    if (isControl) return
    if (!loop.needsInstruction) ctx.manager.onUserMessage(loop)
    // /ralph's own first message is no person's: a loop paused before it came (a run's signal) stays paused.
    if (!loop.needsInstruction && ctx.manager.resume(loop, ctx.now())) {
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

async function runTypedCommand(
  ctx: RalphContext,
  sessionID: string,
  { name, args }: TypedCommand,
  parts: Part[],
): Promise<void> {
  if (isControlCommand(name)) return runControl(ctx, name, sessionID, args, parts)
  if (isMemoryCommand(name)) return runMemoryCommand(ctx, name, args, parts)
  // The loops view has no server command: it opens only from the TUI's own list.
  const view: "ralph-loops" = name
  replaceText(
    parts,
    `${CONTROL_MARKER} /${view}\n\n/${view} opens the TUI's view of the project's loops: type it without ` +
      `anything after it, or pick it from the list.\n\n(This message is for the user. Reply with just "OK".)`,
  )
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
