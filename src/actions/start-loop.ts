// Starting a loop in a session, from /ralph or (activation "always") from a first message.
import type { RalphContext } from "../context.js"
import type { Loop, LoopSettings } from "../loop/loop.js"

export function startLoop(ctx: RalphContext, sessionID: string, task: string): Loop {
  const { promiseWord, maxRetries, strategy, autoRestart, summaryPath } = ctx.settings.current
  const settings: LoopSettings = { promiseWord, maxRetries, strategy, autoRestart, summaryPath }
  const { loop, replaced } = ctx.manager.start(sessionID, task, settings, ctx.now())
  if (replaced) ctx.api.log("info", "a new /ralph replaced the loop running in this session", { session: sessionID })
  ctx.api.log("info", "loop started", { session: sessionID, strategy, maxRetries, promiseWord })
  ctx.runner.toastLoopStarted(loop)
  return loop
}
