import { resolve } from "node:path"
import type { Hooks } from "@opencode-ai/plugin"
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../engine/context.js"
import { refusal } from "../loop/protected-paths.js"
import { selfAcceptRefusal } from "../loop/self-accept.js"
import { ModelCalls, shellEnvHook } from "./shell-env.js"
import { STATE_DIR } from "../project/own-files.js"

type ToolBeforeHook = NonNullable<Hooks["tool.execute.before"]>

/** Thrown on purpose: OpenCode turns it into the tool's error, which the model reads. */
export class RefusedByRalph extends Error {
  override name = "RefusedByRalph"
}

/** While any loop is active, the agent may not delete or rewrite the loop's own files (feature tool-guard). */
export const toolGuardHook =
  (ctx: RalphContext): ToolBeforeHook =>
  async (input, output) => {
    if (ctx.manager.size === 0) return
    refuseSelfAccept(ctx, input, output.args)
    if (!featureOn(ctx.settings.current, "tool-guard")) return
    // The state folder, and the session folders the loops wrote (not the whole summaryPath): those
    // looked up by name (the loops' ids and earlier sessions), never by listing every loop's.
    const sessionFolderParents = (name: string) =>
      ctx.manager.withSessionFolder(name).map((l) => resolve(ctx.directory, l.settings.summaryPath))
    const reason = refusal(input.tool, output.args, {
      directory: ctx.directory,
      folders: [STATE_DIR],
      sessionFolderParents,
    })
    if (!reason) return
    ctx.api.log("warn", `refused a tool call: ${reason}`, { tool: input.tool, session: input.sessionID })
    throw new RefusedByRalph(
      `${reason}. These files are the loop's memory; leave them alone and carry on with the task.`,
    )
  }

/** A model's command that would accept its own loop's findings: refused (whatever the tool-guard feature), and kept. */
function refuseSelfAccept(ctx: RalphContext, input: { tool: string; sessionID: string }, args: unknown): void {
  const reason = selfAcceptRefusal(input.tool, args)
  if (!reason) return
  const loop = ctx.manager.find(input.sessionID)
  const command = String((args as { command?: unknown }).command).slice(0, 200)
  if (loop)
    ctx.manager.acceptRefused(loop, {
      at: new Date(ctx.now()).toISOString(),
      via: `the model's command \`${command}\``,
      keys: [],
      why: reason,
    })
  ctx.api.log("warn", `refused a tool call: ${reason}`, { tool: input.tool, session: input.sessionID })
  throw new RefusedByRalph(`${reason}. Only the user accepts what refused a claim; fix the code instead.`)
}

/** tool.execute.before (each call noted, then the guard) and shell.env (a noted call's shell marked: shell-env.ts). */
export function modelToolHooks(ctx: RalphContext): Pick<Hooks, "tool.execute.before" | "shell.env"> {
  const calls = new ModelCalls()
  const toolGuard = toolGuardHook(ctx)
  return {
    "tool.execute.before": async (input, output) => {
      calls.saw(input.callID)
      await toolGuard(input, output)
    },
    "shell.env": shellEnvHook(calls),
  }
}
