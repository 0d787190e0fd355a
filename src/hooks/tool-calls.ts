// The model called one of the plugin's tools. ralph_done is a completion claim, judged at once by the
// rule the turn's end applies (the answer tells the model in the same turn); the turn's end then
// decides as for the promise. ralph_status reads the loop's state. Neither throws into OpenCode.
import type { ToolContext, ToolResult } from "@opencode-ai/plugin"
import { z } from "zod"
import type { RalphContext } from "../engine/context.js"
import { claimAnswer } from "../loop/claim.js"
import { statusText } from "../acts/status-text.js"
import { reviewOn } from "../review/settings.js"
import type { ToolName } from "./tools.js"

const doneArgs = z.object({
  summary: z.string().default(""),
  evidence: z.union([z.array(z.string()), z.string().transform((s) => [s])]).default([]),
})

export const NO_LOOP =
  "There is no Ralph loop in this session: ralph_done and ralph_status only work in a session where /ralph runs a loop."

export const toolCall =
  (ctx: RalphContext) =>
  async (name: ToolName, args: unknown, context: ToolContext): Promise<ToolResult> => {
    try {
      const loop = ctx.manager.get(context.sessionID)
      if (!loop) return NO_LOOP
      if (name === "ralph_status") return statusText(loop, ctx.now())
      if (!doneArgs.safeParse(args ?? {}).success)
        return "ralph_done needs `summary` (text) and `evidence` (a list of what you verified)."
      if (loop.phase !== "running")
        return (
          `The Ralph loop in this session is ${loop.phase}${loop.detail ? ` (${loop.detail})` : ""}: the ` +
          `claim is not judged now.`
        )
      const judged = await ctx.runner.judgeToolClaim(loop, context.messageID)
      if (!judged)
        return "The claim could not be judged now (see OpenCode's log); it is judged again when your turn ends."
      return {
        title: judged.judgement.accepted ? "accepted" : "rejected",
        output: claimAnswer(loop, judged.judgement, judged.snapshot, reviewOn(loop.settings)),
        metadata: { accepted: judged.judgement.accepted },
      }
    } catch (error) {
      ctx.api.log(
        "error",
        `tool ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      )
      return `${name} failed inside ralph-loop: ${String(error)}`
    }
  }
