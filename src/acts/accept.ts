// `ralph-loop accept [LOOP] [KEY…]` and the TUI's "accept" (issue 46): what refused the loop's last
// claim of done, accepted by its keys (none given: all of it) at no model turn; the next claim is
// judged with it, and the evidence says "accepted by you". Refused when a model's shell ran the
// command (the plugin marks the model's commands: src/hooks/shell-env.ts): the refusal is kept in
// the loop's state and the journal, as a key the model adds to guard.accept is ignored.
import type { RalphContext } from "../engine/context.js"
import { acceptKeys } from "../evidence/acceptance.js"
import type { Loop } from "../loop/loop.js"
import type { ActResult } from "./acts.js"

export interface AcceptAsk {
  keys: readonly string[]
  via: string
  /** The session whose model's shell ran the command (undefined: not a model's). */
  modelSession?: string | undefined
}

const listed = (keys: readonly string[]) => keys.map((k) => `- ${k}`).join("\n")

export function acceptFindings(ctx: RalphContext, loop: Loop, ask: AcceptAsk): ActResult {
  if (loop.phase === "stopped")
    return { done: false, title: "Ralph · loop ended", message: `The Ralph loop ${loop.id} has ended.` }
  const at = new Date(ctx.now()).toISOString()
  if (ask.modelSession !== undefined) {
    const why = `a model's shell ran it (session ${ask.modelSession})`
    ctx.manager.acceptRefused(loop, { at, via: ask.via, keys: [...ask.keys], why })
    ctx.api.log("warn", `an accept was refused: ${why}`, { loop: loop.id, keys: ask.keys })
    return {
      done: false,
      title: "Ralph · accept refused",
      message:
        `Refused: ${why}. Only you accept what refused a claim: run ralph-loop accept in a terminal of your own, ` +
        "or use the TUI's command. The refusal is kept in the loop's state.",
      variant: "warning",
    }
  }
  const answer = acceptKeys(loop.guard, loop.accepted ?? [], ask.keys)
  if (!answer.ok) return notAcceptable(loop, answer.unknown, answer.acceptable)
  if (answer.accepted.length > 0)
    ctx.manager.accept(
      loop,
      answer.accepted.map((key) => ({ key, at, via: ask.via })),
    )
  ctx.api.log("info", "the user accepted what refused a claim", { loop: loop.id, keys: answer.accepted })
  const already = answer.already.length > 0 ? `\nAccepted before:\n${listed(answer.already)}` : ""
  const added =
    answer.accepted.length > 0 ? `Accepted for the loop ${loop.id}:\n${listed(answer.accepted)}` : "Nothing new."
  return {
    done: true,
    title: "Ralph · accepted",
    message: `${added}${already}\nThe next claim of done is judged with it; its evidence says "accepted by you".`,
    variant: "success",
  }
}

function notAcceptable(loop: Loop, unknown: readonly string[], acceptable: readonly string[]): ActResult {
  const what =
    acceptable.length > 0
      ? `What refused it, by key:\n${listed(acceptable)}`
      : "Nothing the guard or the replay found refused it."
  const claim = loop.guard ? `the last claim of done (iteration ${loop.guard.iteration})` : "a claim of done"
  return {
    done: false,
    title: unknown.length > 0 ? "Ralph · no such finding" : "Ralph · nothing to accept",
    message:
      (unknown.length > 0 ? `Not among what refused ${claim}:\n${listed(unknown)}\n` : `Nothing refused ${claim}. `) +
      what,
    variant: "warning",
  }
}
