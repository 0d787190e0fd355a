// What a run of the control channel before this one left in the control folder (channel.ts): requests
// taken but never answered — answered "interrupted", never acted on again, since whether they were done
// is not known — and results no client took, removed once they are stale.
import { lstat, rm } from "node:fs/promises"
import { join } from "node:path"
import { type ControlResult, resultName, takenIdOf } from "./request.js"

/** A result no client took this long after it was written is removed at the next start. */
const STALE_RESULT_MS = 10 * 60_000

export interface LeftoverContext {
  folder: string
  /** Whether this instance is acting on the request `id` now. */
  inflight: (id: string) => boolean
  /** Which takers' taken files this instance answers (ChannelOptions.orphans; without it: all, at the first scan). */
  orphans?: () => Promise<((taker: string | undefined) => boolean) | undefined>
  answer: (id: string, result: Omit<ControlResult, "id">) => Promise<void>
  now: () => number
}

/** Answers the orphaned taken requests among `names`; on the `first` scan also removes stale results. */
export async function answerLeftovers(names: readonly string[], first: boolean, ctx: LeftoverContext): Promise<void> {
  const taken = names.flatMap((name) => {
    const of = takenIdOf(name)
    return of && !ctx.inflight(of.id) ? [{ name, ...of }] : []
  })
  if (!ctx.orphans && !first) return
  const { orphans } = ctx
  const orphan = orphans ? (taken.length > 0 || first ? await orphans() : undefined) : () => true
  if (!orphan) return
  for (const { name, id, taker } of taken) {
    if (!orphan(taker)) continue
    if (!names.includes(resultName(id)))
      await ctx.answer(id, {
        ok: false,
        title: "Ralph · request interrupted",
        message:
          "OpenCode stopped while acting on this request; whether it was done is not known. See ralph-loop status.",
      })
    await rm(join(ctx.folder, name), { force: true }).catch(() => undefined)
  }
  if (!first) return
  for (const name of names.filter((n) => n.endsWith(".result.json"))) {
    const stat = await lstat(join(ctx.folder, name)).catch(() => undefined)
    if (stat && ctx.now() - stat.mtimeMs > STALE_RESULT_MS)
      await rm(join(ctx.folder, name), { force: true }).catch(() => undefined)
  }
}
