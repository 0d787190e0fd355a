import { resolve } from "node:path"
import type { Hooks } from "@opencode-ai/plugin"
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../engine/context.js"
import { refusal } from "../loop/protected-paths.js"
import { STATE_DIR } from "../store/loop-store.js"

type ToolBeforeHook = NonNullable<Hooks["tool.execute.before"]>

/** Thrown on purpose: OpenCode turns it into the tool's error, which the model reads. */
export class RefusedByRalph extends Error {
  override name = "RefusedByRalph"
}

/** While any loop is active, the agent may not delete or rewrite the loop's own files (feature tool-guard). */
export const toolGuardHook =
  (ctx: RalphContext): ToolBeforeHook =>
  async (input, output) => {
    if (ctx.manager.size === 0 || !featureOn(ctx.settings.current, "tool-guard")) return
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
