// What the plugin does with a control request (channel.ts hands each one here): the loop it names
// (which-loop.ts), then the same act as the chat command (acts.ts, memory-commands.ts; `status` reads
// only: /ralph-status's text, status.ts; `clean` is `ralph-loop clean`'s, done here by the lease
// holder: acts/clean.ts). From the control channel no chat turn will end, so a
// resume goes on at once.
import { forgetEntry, rememberEntry } from "../acts/memory.js"
import { statusAnswer } from "../acts/status.js"
import { cleanProjectAct } from "../acts/clean.js"
import { DEFAULT_DAYS } from "../clean/clean-loops.js"
import type { RalphContext } from "../engine/context.js"
import type { Loop } from "../loop/loop.js"
import { cancelLoop, hintLoop, pauseLoop, resumeLoop, rollbackLoop, type ActResult } from "../acts/acts.js"
import { acceptFindings } from "../acts/accept.js"
import type { ControlAct } from "./channel.js"
import type { ControlRequest } from "./request.js"
import { whichLoop } from "./which-loop.js"

/** State files read to find an ended loop a rollback names. */
const ENDED_READ = 30

export const controlAct =
  (ctx: RalphContext): ControlAct =>
  async (request) => {
    const via = request.from ?? `the control channel (${request.verb})`
    const text = request.text?.trim() ?? ""
    if (request.verb === "remember") return answer(await rememberEntry(ctx, text))
    if (request.verb === "forget") return answer(await forgetEntry(ctx, text))
    if (request.verb === "status") return { ok: true, ...(await statusAnswer(ctx, request.session)) }
    if (request.verb === "clean")
      return answer(await cleanProjectAct(ctx, request.days ?? DEFAULT_DAYS, request.force ?? false))
    const found = await loopOf(ctx, request)
    if (!found.ok) return { ok: false, title: "Ralph · no such loop", message: found.reason }
    const loop = found.loop
    const result = await loopAct(ctx, request, loop, via, text)
    ctx.api.toast(result.variant ?? "info", result.title, result.message.split("\n").slice(0, 3).join("\n"))
    return { ...answer(result), loop: loop.id }
  }

function loopAct(
  ctx: RalphContext,
  request: ControlRequest,
  loop: Loop,
  via: string,
  text: string,
): ActResult | Promise<ActResult> {
  switch (request.verb) {
    case "pause":
      return pauseLoop(ctx, loop, via, request.cause ?? "person")
    case "resume":
      return resumeLoop(ctx, loop, false)
    case "cancel":
      return cancelLoop(ctx, loop, via)
    case "hint":
      return hintLoop(ctx, loop, text)
    case "accept":
      return acceptFindings(ctx, loop, { keys: request.keys ?? [], via, modelSession: request.modelSession })
    default:
      return rollbackLoop(
        ctx,
        loop,
        request.checkpoint === undefined
          ? ""
          : request.checkpoint === "start"
            ? "--to-start"
            : String(request.checkpoint),
      )
  }
}

const answer = ({ done, title, message }: { done: boolean; title: string; message: string }) => ({
  ok: done,
  title,
  message,
})

/** The live loop the request names (a rollback may also name an ended one of this project). */
async function loopOf(
  ctx: RalphContext,
  request: ControlRequest,
): Promise<{ ok: true; loop: Loop } | { ok: false; reason: string }> {
  const live = whichLoop(ctx.manager.all(), request.loop)
  if (live.ok || request.verb !== "rollback" || request.loop === undefined) return live
  const ended = (await ctx.savedLoops(ENDED_READ)).map((s) => s.loop).filter((l) => l.phase === "stopped")
  const found = whichLoop(ended, request.loop)
  return found.ok ? found : live
}
