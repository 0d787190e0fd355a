// The one lifecycle of a worktree loop, read from its files alone. Every part that asks "is it
// live", "is it for the watcher to settle", "may clean remove it" asks here: the watcher, the
// parallel run, maxParallelLoops, /ralph-status, `ralph-loop worktrees` and `ralph-loop clean`.
//
//   starting ── the worktree's instance saves the loop ──► running ── the loop stops ──► ended
//      │  └── OpenCode stopped before that (its launcher is gone) ──► unstarted              │
//      │                                                                 │ (recorded)        │
//      └── it could not start (recorded as merge "failed") ──► settled ◄─┴── merged/kept ───┘
//
// `settled` is final: its outcome (merged and removed, kept, conflict, nothing, failed) is on disk.
import type { Loop } from "../loop/loop.js"
import type { Launcher, WorktreeState } from "./worktree-state.js"
import type { Heartbeat } from "../owner/heartbeat.js"
import { ownerLiveness, type Us } from "../owner/liveness.js"

/**
 * A loop's end files (its old sessions' transcripts, its reports) are written by its instance right
 * after it ends; a settle or clean waits for them at most this long (an instance that died meanwhile never will).
 */
export const END_FILES_WAIT_MS = 30_000

/**
 * Whether an ended loop's end files are still to be waited for: not `written` yet, and it stopped (was saved) less than
 * END_FILES_WAIT_MS ago.
 */
export const awaitsEndFiles = (written: boolean, savedAt: number, now: number): boolean =>
  !written && now - savedAt < END_FILES_WAIT_MS

export type WorktreeStage = "starting" | "unstarted" | "running" | "ended" | "settled"

export interface WorktreeFacts {
  state: WorktreeState | undefined
  saved: { loop: Pick<Loop, "phase"> } | undefined
  /** Its launch was cut: the instance that launched it is gone (`launchCut`). */
  launchCut?: boolean
}

/**
 * Whether the instance that launched a worktree loop is gone, seen from `us` (src/owner/liveness.ts,
 * with the main project's heartbeats `beats`, by boot id): another instance of this very process (a
 * restart that reused the pid, or an instance disposed), a process that no longer runs, or one whose
 * heartbeat stopped. A launcher that still beats (a second OpenCode in the project) may still be
 * launching: not cut. No record (an older version), or our own: not cut. A launch record names no
 * host: its launcher made the worktree here.
 */
export function launchCut(launch: Launcher | undefined, us: Us, beats: ReadonlyMap<string, Heartbeat>): boolean {
  if (launch === undefined || launch.boot === us.boot) return false
  const owner = { pid: launch.pid, host: us.host, boot: launch.boot }
  return !ownerLiveness(owner, beats.get(launch.boot), us, beats.values()).alive
}

/** Where a worktree loop is; undefined for a folder without a worktree.json (not one of ours to judge). */
export function stageOf(facts: WorktreeFacts): WorktreeStage | undefined {
  if (facts.state === undefined) return undefined
  if (facts.state.merge !== undefined) return "settled"
  if (facts.saved === undefined) return facts.launchCut ? "unstarted" : "starting"
  return facts.saved.loop.phase === "stopped" ? "ended" : "running"
}

/** A loop starting or running: it holds a maxParallelLoops place and its instance is woken after a restart. */
export const isLive = (facts: WorktreeFacts): boolean => {
  const stage = stageOf(facts)
  return stage === "starting" || stage === "running"
}

/** A loop that ended and whose branch the main instance has not settled yet (commit, merge, remove). */
export const awaitsSettling = (facts: WorktreeFacts): boolean => stageOf(facts) === "ended"

/** A start OpenCode's stop cut off: the main instance records it as failed to start (then it is settled). */
export const startWasCut = (facts: WorktreeFacts): boolean => stageOf(facts) === "unstarted"

/**
 * A worktree a start that did not finish left behind, which a new start of the same name may take
 * the place of (once git shows nothing of anyone's is in it): no loop was ever saved there, and
 * worktree.json says its start failed or was cut off — or there is none (made, then stopped before
 * it was written).
 */
export function leftByFailedStart(facts: WorktreeFacts): boolean {
  if (facts.saved !== undefined) return false
  return facts.state === undefined || facts.state.merge?.result === "failed" || stageOf(facts) === "unstarted"
}

/**
 * Whether `ralph-loop clean` may remove a worktree: a settled, unstarted or ended one — once it has
 * proved that nothing in it is missing from the user's branch, or with --force (its caller's part);
 * never a live one (a loop saved there and not stopped), nor a folder it does not know.
 */
export function cleanVerdict(facts: WorktreeFacts): { remove: true } | { remove: false; why: string } {
  if (facts.saved !== undefined && facts.saved.loop.phase !== "stopped")
    return { remove: false, why: "its loop is still running" }
  switch (stageOf(facts)) {
    case "settled":
    case "unstarted":
    case "ended":
      return { remove: true }
    case "starting":
    case "running":
      return { remove: false, why: "its loop is still running" }
    case undefined:
      return { remove: false, why: "it has no worktree.json, so it is not known to be a worktree loop of ralph-loop" }
  }
}
