// /ralph-status in a session without a loop: the plan at prdPath (what /ralph-plan wrote), if there is one.
import type { RalphContext } from "../context.js"
import type { Loop } from "../loop/loop.js"
import { planFileLines } from "../plan/status.js"
import { readPlanFileSync } from "../store/plan-file.js"

/** The status text with the plan in it, or undefined when there is no plan file to show. */
export function planAtRest(ctx: RalphContext, others: readonly Loop[]): string | undefined {
  const read = readPlanFileSync(ctx.directory, ctx.settings.current.prdPath)
  if (!read.ok && read.reason !== "broken") return undefined
  const loops = others.length ? `Loops in this project:\n${others.map((l) => `- ${l.sessionID}: ${l.phase}, iteration ${l.iteration} — ${l.task.split("\n")[0]}`).join("\n")}` : ""
  return [
    "No Ralph loop in this session.",
    ...(loops ? [loops] : []),
    "",
    ...(read.ok ? planFileLines(read.file, read.plan) : [`Plan: ${read.message}`]),
  ].join("\n")
}
