// The project's lease: one process per project does the project-wide work (the worktree watch, its
// settle and merge, the parallel run's catch-up; `ralph-loop clean`). Pure: what a process does
// with the lease files it read. The files are numbered: `lease/<n>.json`, each made once with an
// exclusive create (store/project-lease.ts), so of two processes that both want number n only one
// gets it; the holder is the writer of the highest number, and it alone rewrites that file (its
// heartbeat). A holder that is gone (src/owner/liveness.ts: its pid gone, its heartbeat stopped)
// is taken over by the next number.
import type { Heartbeat, Identity } from "./heartbeat.js"

export interface LeaseEntry {
  seq: number
  /** Undefined: the file could not be read (damaged). */
  record: Heartbeat | undefined
  /** The file's mtime: a damaged file's only age. */
  writtenAt: number
}

export type LeaseDecision =
  /** This process holds it: beat (rewrite its file), and remove the older numbers. */
  | { kind: "mine"; seq: number; older: number[] }
  /** Nobody live holds it: try to make number `seq`. */
  | { kind: "take"; seq: number }
  /** Another live process holds it (undefined: a damaged file not yet stale). */
  | { kind: "held"; holder: Heartbeat | undefined }

export function decideLease(
  entries: readonly LeaseEntry[],
  me: Identity,
  now: number,
  alive: (record: Heartbeat) => boolean,
  staleMs: number,
): LeaseDecision {
  const top = entries.reduce<LeaseEntry | undefined>((best, e) => (!best || e.seq > best.seq ? e : best), undefined)
  if (!top) return { kind: "take", seq: 1 }
  const { record } = top
  if (record && record.boot === me.boot && record.pid === me.pid && !record.released)
    return { kind: "mine", seq: top.seq, older: entries.filter((e) => e.seq < top.seq).map((e) => e.seq) }
  if (record ? alive(record) : now - top.writtenAt <= staleMs) return { kind: "held", holder: record }
  return { kind: "take", seq: top.seq + 1 }
}
