// /ralph-status in a session without a loop: the plan at prdPath (what /ralph-plan wrote), if there is one.
import type { RalphContext } from "../engine/context.js"
import { planFileLines } from "../plan/status.js"
import { readPlanFileSync } from "../plan/plan-file.js"

/** The plan file's lines for the status, or [] when there is no plan file to show. */
export function planAtRest(ctx: RalphContext): string[] {
  const read = readPlanFileSync(ctx.directory, ctx.settings.current.prdPath)
  if (!read.ok && read.reason !== "broken") return []
  return read.ok ? planFileLines(read.file, read.plan) : [`Plan: ${read.message}`]
}
