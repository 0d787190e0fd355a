// The control commands act in the plugin, at once and deterministically. Their own model turn only
// shows the result: the message text is the answer, and the model is asked for a bare "OK".
import type { Part } from "@opencode-ai/sdk"
import type { RalphContext } from "../context.js"
import type { Loop } from "../loop/loop.js"
import { resumeByHand } from "../loop/resume.js"
import { CONTROL_MARKER, type ControlCommand } from "./definitions.js"
import { cancelContinuations, continuationStatus } from "./continuation-status.js"
import { endedLoop, statusMessage } from "./status.js"
import { helpText } from "./status-text.js"
import { rollback } from "./rollback.js"
import { replaceText } from "./text.js"

export async function runControl(ctx: RalphContext, command: ControlCommand, sessionID: string, args: string, parts: Part[]): Promise<void> {
  const loop = ctx.manager.find(sessionID)
  const result =
    command === "ralph-status" ? await status(ctx, sessionID) : command === "ralph-rollback" ? await rollbackIn(ctx, loop, sessionID, args) : act(ctx, command, loop, args.trim(), sessionID)
  ctx.api.toast(result.variant ?? "info", result.title, result.message.split("\n").slice(0, 3).join("\n"))
  replaceText(parts, `${CONTROL_MARKER} /${command}\n\n${result.message}\n\n(This message is for the user; the Ralph loop plugin already did it. Reply with just "OK".)`)
}

interface Result {
  title: string
  message: string
  variant?: "info" | "success" | "warning" | "error"
}

/** /ralph-rollback acts on the session's loop, live or ended; git's failures are said, not thrown. */
async function rollbackIn(ctx: RalphContext, live: Loop | undefined, sessionID: string, args: string): Promise<Result> {
  const loop = live ?? (await endedLoop(ctx, sessionID))
  if (!loop) return NO_LOOP
  return rollback(ctx, loop, args).catch((error: unknown) => ({ title: "Ralph · rollback failed", message: `The rollback did not finish: ${String(error)}`, variant: "error" as const }))
}

const NO_LOOP: Result = { title: "Ralph · no loop here", message: "There is no Ralph loop in this session. Start one with /ralph <task>." }

async function status(ctx: RalphContext, sessionID: string): Promise<Result> {
  const message = await statusMessage(ctx, sessionID)
  const result = message ? { title: "Ralph · status", message } : NO_LOOP
  // Without a live loop here, the continuations outside /ralph say what they would do.
  return ctx.manager.find(sessionID) ? result : { ...result, message: `${result.message}\n\n${continuationStatus(ctx, sessionID)}` }
}

function act(ctx: RalphContext, command: Exclude<ControlCommand, "ralph-status" | "ralph-rollback">, loop: Loop | undefined, args: string, sessionID: string): Result {
  switch (command) {
    case "ralph-help":
      return { title: "Ralph · help", message: helpText() }
    case "cancel-ralph":
      // The session's continuations stop too: the cancelled loop's last turn is not continued.
      if (!loop) return cancelContinuations(ctx, sessionID) ?? NO_LOOP
      ctx.continuations.cancel(sessionID)
      ctx.manager.stop(loop, "cancelled", "cancelled with /cancel-ralph")
      ctx.runner.ended(loop)
      ctx.api.log("info", "loop cancelled by the user", { loop: loop.id, iteration: loop.iteration })
      return { title: "Ralph · cancelled", message: `The Ralph loop ended at iteration ${loop.iteration}. Nothing more will be sent.` }
    case "ralph-pause":
      if (!loop) return NO_LOOP
      if (loop.phase === "paused") return { title: "Ralph · paused", message: "The loop is already paused. /ralph-resume goes on." }
      ctx.manager.pause(loop, "paused with /ralph-pause")
      return { title: "Ralph · paused", message: `The loop is paused at iteration ${loop.iteration}; nothing is sent. /ralph-resume goes on, /cancel-ralph ends it.`, variant: "warning" }
    case "ralph-resume":
      if (!loop) return NO_LOOP
      if (loop.phase !== "paused" && loop.phase !== "waiting") return { title: "Ralph · running", message: `The loop is not paused (it is ${loop.phase}).` }
      // Typed in the loop's session, it goes on when this command's turn ends; typed in an earlier
      // session of the loop, that turn's idle is not the loop's, so it goes on now.
      const { how, breaker } = resumeByHand(loop)
      const here = sessionID === loop.sessionID
      ctx.manager.resumedByHand(loop, how, breaker, ctx.now(), here)
      if (!here) ctx.runner.resumeNow(loop, how)
      return { title: "Ralph · resumed", message: `The loop goes on at iteration ${loop.iteration} once this reply is done.` }
    case "ralph-hint":
      if (!loop) return NO_LOOP
      if (!args) return { title: "Ralph · no hint", message: "Usage: /ralph-hint <text>", variant: "warning" }
      ctx.manager.addHint(loop, args)
      return { title: "Ralph · hint queued", message: `The next prompt of the loop will carry your hint (once): ${args}` }
  }
}
