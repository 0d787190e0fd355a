// /ralph <task> [flags] and /ralph --prd [PATH] [task]: parse, validate, and start a loop — or
// start nothing and say why. A typed keyword message ("ralph: <task> [flags]") comes here too,
// with what the user typed.
import type { Part } from "@opencode-ai/sdk"
import { startLoop } from "../engine/start-loop.js"
import type { RalphContext } from "../engine/context.js"
import type { Loop } from "../loop/loop.js"
import { runControl } from "./control.js"
import { parseRalphArgs } from "./ralph-args.js"
import { planToWork, startPlan } from "./start-plan.js"
import { startInWorktree } from "./start-worktree.js"
import type { Settings } from "../config/schema.js"
import { replaceText } from "./text.js"

export async function startFromCommand(
  ctx: RalphContext,
  sessionID: string,
  args: string,
  parts: Part[],
  typed = `/ralph ${args}`,
): Promise<void> {
  // Seed 004's `/ralph --cancel` is /cancel-ralph.
  if (args.trim() === "--cancel") return runControl(ctx, "cancel-ralph", sessionID, "", parts)
  ctx.settings.showUnseen()
  ctx.settings.reload()
  const parsed = parseRalphArgs(args)
  if (!parsed.ok) return notStarted(ctx, parts, typed, parsed.error)
  const worktree = ctx.worktree()
  if (!parsed.task && parsed.prd === undefined) {
    ctx.api.toast("warning", "Ralph · no task", "Usage: /ralph <task> [flags]. No loop was started.")
    replaceText(
      parts,
      "The user typed /ralph without a task, so no Ralph loop was started. Tell them in one sentence that the " +
        "usage is `/ralph <task> [flags]` and do nothing else.",
    )
    return
  }
  const session = await ctx.api.sessionInfo(sessionID).catch(() => undefined)
  if (session?.parentID) {
    ctx.api.toast("warning", "Ralph · not started", "Loops run only in top-level sessions, not in subagent sessions.")
    return
  }
  if (parsed.parallel !== undefined && parsed.prd !== undefined) {
    if (worktree)
      return notStarted(
        ctx,
        parts,
        typed,
        "this session already runs in a worktree; start a parallel plan run from the project's own sessions",
      )
    return startParallel(
      ctx,
      sessionID,
      { overrides: parsed.overrides, prd: parsed.prd, parallel: parsed.parallel },
      parts,
      typed,
    )
  }
  if (worktree && parsed.worktree)
    return notStarted(
      ctx,
      parts,
      typed,
      "this session already runs in a worktree; start a worktree loop from the project's own sessions",
    )
  if (!worktree && parsed.prd === undefined && (parsed.worktree || ctx.settings.current.worktree)) {
    if (!parsed.task) return notStarted(ctx, parts, typed, "a worktree loop needs a task")
    return startInWorktree(
      ctx,
      sessionID,
      { task: parsed.task, overrides: parsed.overrides, request: parsed.worktree ?? { withChanges: false } },
      parts,
    )
  }
  if (worktree?.cancelled)
    return notStarted(ctx, parts, typed, `the parallel run of this story was cancelled (${worktree.cancelled})`)
  // In a worktree, the loop gets the flags of the /ralph that made it (under any given here).
  const overrides = { ...(worktree?.overrides as Partial<Settings> | undefined), ...parsed.overrides }
  let loop: Loop | undefined
  if (parsed.prd !== undefined) {
    const started = await startPlan(ctx, sessionID, {
      task: parsed.task,
      overrides,
      prd: parsed.prd,
      story: parsed.story,
    })
    if (!started.ok) return notStarted(ctx, parts, typed, started.error, started.variant)
    loop = started.loop
    replaceText(parts, started.prompt)
  } else {
    // The model gets the task without the flags (the template was the raw argument line).
    replaceText(parts, parsed.task)
    loop = await startLoop(ctx, sessionID, parsed.task, overrides)
  }
  // On disk before the task reaches the model: a crash from here on finds the loop on restart.
  await ctx.runner.persisted(loop)
  ctx.runner.reached("loop.started")
}

async function startParallel(
  ctx: RalphContext,
  sessionID: string,
  args: { overrides: Partial<Settings>; prd: string | true; parallel: number },
  parts: Part[],
  typed: string,
): Promise<void> {
  const read = await planToWork(ctx, args)
  if (!read.ok) return notStarted(ctx, parts, typed, read.error, read.variant)
  const started = await ctx.parallel.start(read.plan, args.parallel, sessionID, args.overrides)
  if (!started.ok) return notStarted(ctx, parts, typed, started.error)
  ctx.api.toast(
    "info",
    "Ralph · parallel plan",
    `${read.plan.file}: stories ${started.started.join(", ")} started, each in its own worktree (up to ` +
      `${args.parallel} at once). Each is merged back and marked done in the plan as it completes.`,
  )
  replaceText(
    parts,
    `The stories ${started.started.join(", ")} of the plan ${read.plan.file} now run at once, each as a Ralph ` +
      `loop in its own git worktree; the rest follow as their dependencies are done and places free up ` +
      `(maxParallelLoops). Tell the user that in one sentence and do nothing else.`,
  )
}

function notStarted(
  ctx: RalphContext,
  parts: Part[],
  typed: string,
  error: string,
  variant: "error" | "warning" = "error",
): void {
  ctx.api.toast(variant, "Ralph · not started", `/ralph: ${error}`)
  replaceText(
    parts,
    `The user typed \`${typed}\` but no Ralph loop was started: ${error}. Tell them exactly that in one or two ` +
      `sentences and do nothing else.`,
  )
}
