// /ralph and the control commands act here, in the plugin, before OpenCode creates the user message.
import type { Hooks } from "@opencode-ai/plugin"
import { runControl } from "../commands/control.js"
import { isControlCommand, isMemoryCommand, RALPH, RALPH_PLAN } from "../host/commands.js"
import { runMemoryCommand } from "../commands/memory-commands.js"
import { planFromCommand } from "../commands/plan.js"
import { startFromCommand } from "../commands/start.js"
import type { RalphContext } from "../engine/context.js"

type CommandHook = NonNullable<Hooks["command.execute.before"]>

export const commandHook =
  (ctx: RalphContext): CommandHook =>
  async (input, output) => {
    // A command is never the first *message* that starts an "always" loop.
    ctx.newSessions.delete(input.sessionID)
    if (input.command === RALPH) await startFromCommand(ctx, input.sessionID, input.arguments, output.parts)
    else if (input.command === RALPH_PLAN) await planFromCommand(ctx, input.sessionID, input.arguments, output.parts)
    else if (isControlCommand(input.command)) {
      await runControl(ctx, input.command, input.sessionID, input.arguments, output.parts)
      ctx.controlTurns.commandRewritten(input.sessionID)
    } else if (isMemoryCommand(input.command)) {
      await runMemoryCommand(ctx, input.command, input.arguments, output.parts)
      ctx.controlTurns.commandRewritten(input.sessionID)
    }
  }
