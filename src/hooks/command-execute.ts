// /ralph and /cancel-ralph act here, in the plugin, before OpenCode creates the user message.
// A command always runs a model turn; its text is rewritten to tell the model what happened.
import type { Hooks } from "@opencode-ai/plugin"
import type { Part } from "@opencode-ai/sdk"
import { startLoop } from "../actions/start-loop.js"
import { CANCEL_RALPH, RALPH } from "../commands.js"
import type { RalphContext } from "../context.js"

type CommandHook = NonNullable<Hooks["command.execute.before"]>
type CommandInput = Parameters<CommandHook>[0]

export const commandHook =
  (ctx: RalphContext): CommandHook =>
  async (input, output) => {
    // A command is never the first *message* that starts an "always" loop.
    ctx.newSessions.delete(input.sessionID)
    if (input.command === RALPH) await startFromCommand(ctx, input, output.parts)
    else if (input.command === CANCEL_RALPH) cancel(ctx, input, output.parts)
  }

async function startFromCommand(ctx: RalphContext, input: CommandInput, parts: Part[]): Promise<void> {
  ctx.settings.showUnseen()
  ctx.settings.reload()
  const task = input.arguments.trim()
  if (!task) {
    ctx.api.toast("warning", "Ralph · no task", "Usage: /ralph <task>. No loop was started.")
    replaceText(parts, "The user typed /ralph without a task, so no Ralph loop was started. Tell them in one sentence that the usage is `/ralph <task>`.")
    return
  }
  const session = await ctx.api.session(input.sessionID).catch(() => undefined)
  if (session?.parentID) {
    ctx.api.toast("warning", "Ralph · not started", "Loops run only in top-level sessions, not in subagent sessions.")
    return
  }
  startLoop(ctx, input.sessionID, task)
}

function cancel(ctx: RalphContext, input: CommandInput, parts: Part[]): void {
  const loop = ctx.manager.find(input.sessionID)
  if (!loop) {
    ctx.api.toast("info", "Ralph · nothing to cancel", "There is no Ralph loop in this session.")
    replaceText(parts, "The user typed /cancel-ralph but there is no Ralph loop in this session. Say so in one short sentence and do nothing else.")
    return
  }
  ctx.manager.stop(loop, "cancelled")
  ctx.runner.cancelTimer(loop)
  ctx.api.toast("info", "Ralph · cancelled", `Loop ended at iteration ${loop.iteration}. Nothing more will be sent.`)
  ctx.api.log("info", "loop cancelled by the user", { loop: loop.id, iteration: loop.iteration })
  replaceText(parts, "The user cancelled the Ralph loop with /cancel-ralph; the plugin has ended it and will send nothing more. Confirm that in one short sentence and do nothing else.")
}

/** Rewrites the command's text in place (OpenCode keeps the array it passed in). */
function replaceText(parts: Part[], text: string): void {
  const first = parts.find((p) => p.type === "text")
  if (first && first.type === "text") first.text = text
}
