// How a loop ended, in the words the user sees where they look for it: the session's title in the
// TUI's session list (a finished loop must not keep "Ralph 3/6 · …", which reads as in progress).
import type { Loop, StopReason } from "./loop.js"
import { shorten } from "./prompts.js"

/** The mark and word of each stop; none for a stop whose session is gone or taken over. */
const MARKS: Record<StopReason, string | undefined> = {
  completed: "✓",
  cancelled: "■ cancelled",
  "max-iterations": "⚠ limit",
  "retries-exhausted": "⚠ limit",
  "token-budget": "⚠ token budget",
  "cost-budget": "⚠ cost budget",
  "time-budget": "⚠ time budget",
  stagnation: "⚠ stalled",
  review: "⚠ rejected by review",
  "auth-error": "✗ auth error",
  "session-deleted": undefined,
  replaced: undefined,
}

export const iterations = (n: number): string => `${n} iteration${n === 1 ? "" : "s"}`

/**
 * `Ralph ✓ · <task> · 3 iterations`, `Ralph ■ cancelled · …`, `Ralph ⚠ limit · …`; undefined: leave the title alone.
 */
export function outcomeTitle(loop: Loop): string | undefined {
  const mark = loop.phase === "stopped" && loop.stopReason ? MARKS[loop.stopReason] : undefined
  return mark ? `Ralph ${mark} · ${shorten(loop.task, 50)} · ${iterations(loop.iteration)}` : undefined
}

/** The mark and reason of a stop, as /ralph-status lists it: "✓ completed", "■ cancelled", "⚠ max-iterations". */
export const stopLabel = (reason: StopReason | undefined): string =>
  `${(reason && MARKS[reason]?.split(" ")[0]) ?? "■"} ${reason ?? "stopped"}`
