// Which loop a control request means: a loop's id or the start of it, or — none named — the one
// live loop. Anything else is refused with the choices named. Pure; the plugin asks it of its live
// loops, the `ralph-loop` command of the loops it reads from files.
export type WhichLoop<L> = { ok: true; loop: L } | { ok: false; reason: string }

const listed = (loops: readonly { id: string }[]): string => loops.map((l) => l.id).join(", ")

export function whichLoop<L extends { id: string }>(loops: readonly L[], wanted: string | undefined): WhichLoop<L> {
  if (wanted === undefined) {
    if (loops.length === 1) return { ok: true, loop: loops[0] as L }
    if (loops.length === 0) return { ok: false, reason: "There is no live Ralph loop in this project." }
    return { ok: false, reason: `${loops.length} Ralph loops are live in this project; name one: ${listed(loops)}.` }
  }
  const exact = loops.find((l) => l.id === wanted)
  if (exact) return { ok: true, loop: exact }
  const matching = loops.filter((l) => l.id.startsWith(wanted))
  if (matching.length === 1) return { ok: true, loop: matching[0] as L }
  if (matching.length === 0)
    return {
      ok: false,
      reason: `No live Ralph loop here is ${wanted}${loops.length ? ` (live: ${listed(loops)})` : ""}.`,
    }
  return {
    ok: false,
    reason: `${wanted} is the start of ${matching.length} loops' ids; give more of it: ${listed(matching)}.`,
  }
}
