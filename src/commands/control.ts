// The control commands act in the plugin, at once and deterministically. Their own model turn only
// shows the result: the message text is the answer, and the model is asked for a bare "OK".
import type { Part } from "@opencode-ai/sdk"
import type { RalphContext } from "../engine/context.js"
import type { Loop } from "../loop/loop.js"
import { cancelLoop, hintLoop, pauseLoop, resumeLoop, rollbackLoop } from "../acts/acts.js"
import { CONTROL_MARKER, type ControlCommand } from "../host/commands.js"
import { cancelContinuations } from "../acts/continuation-status.js"
import { cancelParallelRun } from "../acts/parallel-cancel.js"
import { endedLoop, NO_LOOP, statusAnswer } from "../acts/status.js"
import { acceptFindings } from "../acts/accept.js"
import { helpText } from "./help-text.js"
import { replaceText } from "./text.js"

export async function runControl(
  ctx: RalphContext,
  command: ControlCommand,
  sessionID: string,
  args: string,
  parts: Part[],
): Promise<void> {
  const loop = ctx.manager.find(sessionID)
  const result =
    command === "ralph-status"
      ? await statusAnswer(ctx, sessionID)
      : command === "ralph-rollback"
        ? await rollbackIn(ctx, loop, sessionID, args)
        : act(ctx, command, loop, args.trim(), sessionID)
  ctx.api.toast(result.variant ?? "info", result.title, result.message.split("\n").slice(0, 3).join("\n"))
  replaceText(
    parts,
    `${CONTROL_MARKER} /${command}\n\n${result.message}\n\n(This message is for the user; the Ralph loop plugin ` +
      `already did it. Reply with just "OK".)`,
  )
}

interface Result {
  title: string
  message: string
  variant?: "info" | "success" | "warning" | "error"
}

/** /ralph-rollback acts on the session's loop, live or ended; git's failures are said, not thrown. */
async function rollbackIn(ctx: RalphContext, live: Loop | undefined, sessionID: string, args: string): Promise<Result> {
  const loop = live ?? (await endedLoop(ctx, sessionID))
  return loop ? rollbackLoop(ctx, loop, args) : NO_LOOP
}

function act(
  ctx: RalphContext,
  command: Exclude<ControlCommand, "ralph-status" | "ralph-rollback">,
  loop: Loop | undefined,
  args: string,
  sessionID: string,
): Result {
  switch (command) {
    case "ralph-help":
      return { title: "Ralph · help", message: helpText() }
    case "cancel-ralph":
      // The session's continuations stop too: the cancelled loop's last turn is not continued.
      if (!loop) return cancelParallelRun(ctx, sessionID) ?? cancelContinuations(ctx, sessionID) ?? NO_LOOP
      return cancelLoop(ctx, loop, "/cancel-ralph", sessionID)
    case "ralph-pause":
      return loop ? pauseLoop(ctx, loop, "/ralph-pause") : NO_LOOP
    case "ralph-resume":
      // Typed in the loop's session, it goes on when this command's turn ends; typed in an earlier
      // session of the loop, that turn's idle is not the loop's, so it goes on now.
      return loop ? resumeLoop(ctx, loop, sessionID === loop.sessionID) : NO_LOOP
    case "ralph-hint":
      return loop ? hintLoop(ctx, loop, args) : NO_LOOP
    case "ralph-accept":
      // Typed by a person (a model runs no slash command): a key a line (keys hold spaces); none is all of it.
      return loop ? acceptFindings(ctx, loop, { keys: keyLines(args), via: "/ralph-accept" }) : NO_LOOP
  }
}

const keyLines = (args: string): string[] =>
  args
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
