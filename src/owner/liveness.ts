// The one rule for "is the process that owns this still there": a loop's owner (its state file
// names it), the lease's holder, the taker of a control request, a worktree loop's launcher. Every
// module that asks, asks here. Pure: the caller reads the files and brings a probe for local pids.
//
//   it beats (its heartbeat file, by boot id) ── released ─────────────────────► gone
//                                            ├─ it is us (pid, host and boot id) ─► alive
//                                            ├─ our pid, another boot id ────────► gone (pid reused)
//                                            ├─ here, its pid gone ──────────────► gone
//                                            ├─ at most STALE_MS old ────────────► alive
//                                            ├─ here, its pid runs, at most STALLED_MS old, and no
//                                            │    other live heartbeat holds that pid ──► alive,
//                                            │    stalled (taken over, it would run on beside the
//                                            │    new owner once it goes on)
//                                            └─ else ────────────────────────────► gone (another
//                                                 host's: its pid is not ours to ask; here: hung,
//                                                 or its pid was reused after a reboot)
//   no heartbeat file                        ── on another host ─────────────────► gone (nothing says
//                                            │    it runs)
//                                            ├─ its pid is ours, or another live heartbeat has it
//                                            │    (another boot id: the pid was reused) ──► gone
//                                            └─ its pid runs ? alive : gone (an owner of a version
//                                                 before heartbeats, a worktree's instance)
import { STALE_MS, STALLED_MS, type Heartbeat } from "./heartbeat.js"

/** Who owns something, as its file names it (the boot id is absent in files of older versions). */
export interface Owner {
  pid: number
  host: string
  boot?: string | undefined
}

/** Who asks: this process, on this host, at `now`. */
export interface Us {
  host: string
  pid: number
  /** The asking instance's boot id (none: a `ralph-loop` command, which owns nothing). */
  boot?: string | undefined
  now: number
  /** Whether a process of this pid runs on this host. */
  pidAlive(pid: number): boolean
}

export type Liveness =
  | { alive: true; why: "us" | "beating" | "stalled" | "pid-runs" }
  | { alive: false; why: "released" | "stale" | "pid-gone" | "pid-reused" | "no-heartbeat" }

/**
 * Whether `owner` still runs, from its heartbeat `beat` (the record of its boot id, if any), the
 * other processes' heartbeats `beats` (a live one with the owner's pid and another boot id has
 * taken that pid) and what `us` can see.
 */
export function ownerLiveness(
  owner: Owner,
  beat: Heartbeat | undefined,
  us: Us,
  beats: Iterable<Heartbeat> = [],
): Liveness {
  const here = owner.host === us.host
  const itsBeat = beat !== undefined && beat.boot === owner.boot
  if (itsBeat && beat.released) return { alive: false, why: "released" }
  if (here && owner.pid === us.pid && owner.boot !== undefined && owner.boot === us.boot)
    return { alive: true, why: "us" }
  // Our own pid under another boot id, heartbeat or not: a former instance of this process (disposed,
  // or before a restart that got the same pid: pid 1 in a container).
  if (here && owner.pid === us.pid && us.boot !== undefined) return { alive: false, why: "pid-reused" }
  if (itsBeat) {
    if (here && !us.pidAlive(owner.pid)) return { alive: false, why: "pid-gone" }
    const age = us.now - beat.heartbeat
    if (age <= STALE_MS) return { alive: true, why: "beating" }
    if (!here || age > STALLED_MS) return { alive: false, why: "stale" }
    return pidTaken(owner, us.now, beats) ? { alive: false, why: "pid-reused" } : { alive: true, why: "stalled" }
  }
  if (!here) return { alive: false, why: "no-heartbeat" }
  if (owner.pid === us.pid || pidTaken(owner, us.now, beats)) return { alive: false, why: "pid-reused" }
  return us.pidAlive(owner.pid) ? { alive: true, why: "pid-runs" } : { alive: false, why: "pid-gone" }
}

/** A live heartbeat of another boot id holds the owner's pid on its host. */
function pidTaken(owner: Owner, now: number, beats: Iterable<Heartbeat>): boolean {
  for (const b of beats)
    if (b.pid === owner.pid && b.host === owner.host && b.boot !== owner.boot && !b.released)
      if (now - b.heartbeat <= STALE_MS) return true
  return false
}

/** A heartbeat record as the owner it names (the lease's holder, a control request's taker). */
export const beatLiveness = (record: Heartbeat, us: Us, beats?: Iterable<Heartbeat>): Liveness =>
  ownerLiveness(record, record, us, beats)
