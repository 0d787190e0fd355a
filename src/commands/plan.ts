// /ralph-plan <task>: the model, in this session, is asked to write the plan for the task to the
// setting prdPath; its turn's end is checked (src/plan/plan-turn.ts). No loop starts.
import type { Part } from "@opencode-ai/sdk"
import type { RalphContext } from "../engine/context.js"
import { planningPrompt } from "../plan/prompts.js"
import { readPlanFile } from "../plan/plan-file.js"
import { replaceText } from "./text.js"

export async function planFromCommand(
  ctx: RalphContext,
  sessionID: string,
  args: string,
  parts: Part[],
): Promise<void> {
  ctx.settings.showUnseen()
  const { prdPath } = ctx.settings.reload()
  const task = args.trim()
  const refuse = (title: string, why: string) => {
    ctx.api.toast("warning", title, why)
    replaceText(
      parts,
      `The user typed \`/ralph-plan ${args}\` but no plan was asked for: ${why} Tell them exactly that in one ` +
        `sentence and do nothing else.`,
    )
  }
  if (!task) return refuse("Ralph · no task", "Usage: /ralph-plan <task>.")
  if (ctx.manager.get(sessionID))
    return refuse(
      "Ralph · not now",
      "A Ralph loop runs in this session; /cancel-ralph it first, or plan in another session.",
    )
  const before = await readPlanFile(ctx.directory, prdPath)
  if (!before.ok && before.reason === "outside")
    return refuse("Ralph · plan not asked for", `${before.message} (setting prdPath).`)
  ctx.plans.ask(sessionID, before.file, before.text)
  ctx.api.log("info", "plan asked for", { session: sessionID, file: before.file })
  replaceText(parts, planningPrompt(task, before.file))
}
