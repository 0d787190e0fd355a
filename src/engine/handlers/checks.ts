// Production's handlers of the effects that run the project's checks (src/engine/effects-checks.ts).
import type { CheckConfig } from "../../config/schema.js"
import type { Handlers } from "../../effects/kernel.js"
import type { CheckResult } from "../../checks/diagnostics.js"
import { checksFor } from "../../plan/plan.js"
import { runCheck } from "../../checks/run-checks.js"
import { detectChecks } from "../../checks/detect-checks.js"
import type { HandlerContext } from "./context.js"

/** The checks one after the other, each in its own process group (killed on dispose). */
async function runChecks(ctx: HandlerContext, checks: readonly CheckConfig[]): Promise<CheckResult[]> {
  const results = []
  for (const check of checks) results.push(await runCheck(check, ctx.directory, ctx.checkGroups))
  return results
}

export const checkHandlers = (ctx: HandlerContext) =>
  ({
    "run-checks": (effect) => runChecks(ctx, checksFor(effect.loop.settings, effect.loop.plan)),
    "detect-checks": () => detectChecks(ctx.directory),
    "auto-checks": (effect) => runChecks(ctx, effect.checks),
  }) satisfies Partial<Handlers>
