// Starting a loop in a session, from /ralph or (activation "always") from a first message.
import { withReviewFlag } from "../review/settings.js"
import type { SettingKey, Settings } from "../config/schema.js"
import type { RalphContext } from "./context.js"
import { consistentSettings } from "../loop/limits.js"
import type { Loop } from "../loop/loop.js"
import type { PlanState } from "../plan/plan.js"
import { redacted, redactUrl, withoutWebhook } from "../files/redact.js"
import { detectChecks } from "../checks/detect-checks.js"
import * as notice from "../loop/notices.js"

/** Resolves once the work tree as the loop begins is recorded: before the task reaches the model. */
export async function startLoop(
  ctx: RalphContext,
  sessionID: string,
  task: string,
  overrides: Partial<Settings> = {},
  plan?: PlanState,
): Promise<Loop> {
  const { activation: _activation, ...merged } = {
    ...ctx.settings.current,
    ...overrides,
    review: withReviewFlag(ctx.settings.current.review, overrides.review),
  }
  if (merged.checks.length === 0 && merged.autoDetectChecks) merged.checks = detectChecks(ctx.directory)
  const explicit = new Set([...ctx.settings.explicit, ...(Object.keys(overrides) as SettingKey[])])
  // The webhook is a secret: the loop does not keep it (nor its files); a notification reads the settings in force.
  const { settings, notices } = consistentSettings(
    withoutWebhook(merged),
    explicit,
    new Set(Object.keys(overrides) as SettingKey[]),
    plan !== undefined,
  )
  if (notices.length > 0) ctx.api.toast("info", "Ralph · settings adjusted", notices.join("\n"))
  const { loop, replaced } = ctx.manager.start(sessionID, task, settings, ctx.now(), plan)
  if (replaced) ctx.api.log("info", "a new /ralph replaced the loop running in this session", { session: sessionID })
  const { webhook } = ctx.settings.current.notify
  ctx.api.log("info", "loop started", {
    session: sessionID,
    settings: redacted(settings),
    ...(webhook ? { webhook: redactUrl(webhook) } : {}),
    ...(plan ? { plan: plan.file, stories: plan.stories.length } : {}),
  })
  notice.show(ctx.api, notice.started(loop))
  await ctx.runner.captureStart(loop)
  return loop
}
