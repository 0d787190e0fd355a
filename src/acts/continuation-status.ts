// /ralph-status and /cancel-ralph in a session without a loop: which continuations act there and
// why, and stopping them. Appended by control.ts to its no-loop answers.
import { featureOn } from "../config/features.js"
import type { Settings } from "../config/schema.js"
import type { RalphContext } from "../engine/context.js"
import type { Watched } from "../continuations/watch.js"
import { clock } from "../loop/notices.js"

const DISABLED = "off — listed in disabledFeatures"

export function continuationStatus(ctx: RalphContext, sessionID: string): string {
  const s = ctx.settings.current
  const watched = ctx.continuations.get(sessionID)
  const child = typeof watched?.parentID === "string"
  return [
    "Continuations in this session:",
    `- todo-continuation: ${todoLine(s, watched, child)}`,
    `- keyword: ${
      featureOn(s, "keyword")
        ? s.keywords.length
          ? `on — a message starting with ${s.keywords.map((k) => `"${k}"`).join(" or ")} starts a loop`
          : "off — keywords is empty"
        : DISABLED
    }`,
    `- auto-continue: ${autoLine(s, watched, child)}`,
  ].join("\n")
}

function todoLine(s: Settings, w: Watched | undefined, child: boolean): string {
  if (!featureOn(s, "todo-continuation")) return DISABLED
  if (child) return "off here — a subagent's session is never continued"
  if (w?.cancelled) return "stopped by /cancel-ralph — your next message turns it back on"
  if (w?.countdownUntil !== undefined) return `continuing at ${clock(w.countdownUntil)} (type or Esc to stop)`
  const limits =
    `${s.todoContinuationDelaySeconds} s countdown, at most ${s.todoContinuationMax} in a row ` +
    `without a todo completed`
  if (w && w.todo.streak >= s.todoContinuationMax)
    return (
      `stopped — ${s.todoContinuationMax} in a row without a todo completed; your next message starts the ` +
      `count again`
    )
  return (
    `on — a turn that ends with open todos is continued (${limits}` +
    `${w?.todo.streak ? `; ${w.todo.streak} sent in a row` : ""})`
  )
}

function autoLine(s: Settings, w: Watched | undefined, child: boolean): string {
  if (s.disabledFeatures.includes("auto-continue")) return DISABLED
  if (!s.autoContinue) return "off — autoContinue is false (the default)"
  if (child) return "off here — a subagent's session is never continued"
  if (w?.cancelled) return "stopped by /cancel-ralph — your next message turns it back on"
  if (w?.auto.ended)
    return (
      "ended for your last message (limit, no fewer errors, or a completion marker) — your next message " +
      "starts again"
    )
  return (
    `on — a turn that changes files gets the typecheck and lint checks, and is continued while they fail ` +
    `(at most ${s.autoContinueMax} per message${w?.auto.count ? `; ${w.auto.count} sent` : ""})`
  )
}

/**
 * /cancel-ralph without a loop: nothing is continued here until the user writes. Undefined when nothing was under way.
 */
export function cancelContinuations(
  ctx: RalphContext,
  sessionID: string,
): { title: string; message: string } | undefined {
  if (!ctx.continuations.cancel(sessionID)) return undefined
  return {
    title: "Ralph · cancelled",
    message: "The continuations of this session stopped: nothing more is sent here until you write.",
  }
}
