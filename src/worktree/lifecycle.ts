// The one lifecycle of a worktree loop, read from its files alone. Every part that asks "is it
// live", "is it for the watcher to settle", "may clean remove it" asks here: the watcher, the
// parallel run, maxParallelLoops, /ralph-status, `ralph-loop worktrees` and `ralph-loop clean`.
//
//   starting ── the worktree's instance saves the loop ──► running ── the loop stops ──► ended
//      │                                                                                  │
//      └── it could not start (recorded as merge "failed") ──► settled ◄── merged/kept ───┘
//
// `settled` is final: its outcome (merged and removed, kept, conflict, nothing, failed) is on disk.
import type { Loop } from "../loop/loop.js"
import type { WorktreeState } from "./worktree-state.js"

export type WorktreeStage = "starting" | "running" | "ended" | "settled"

export interface WorktreeFacts {
  state: WorktreeState | undefined
  saved: { loop: Pick<Loop, "phase"> } | undefined
}

/** Where a worktree loop is; undefined for a folder without a worktree.json (not one of ours to judge). */
export function stageOf(facts: WorktreeFacts): WorktreeStage | undefined {
  if (facts.state === undefined) return undefined
  if (facts.state.merge !== undefined) return "settled"
  if (facts.saved === undefined) return "starting"
  return facts.saved.loop.phase === "stopped" ? "ended" : "running"
}

/** A loop starting or running: it holds a maxParallelLoops place and its instance is woken after a restart. */
export const isLive = (facts: WorktreeFacts): boolean => {
  const stage = stageOf(facts)
  return stage === "starting" || stage === "running"
}

/** A loop that ended and whose branch the main instance has not settled yet (commit, merge, remove). */
export const awaitsSettling = (facts: WorktreeFacts): boolean => stageOf(facts) === "ended"

/**
 * What `ralph-loop clean` may do with a worktree: only a settled one is ever removed. An ended one
 * waits for the plugin to merge it (or the user's --force); a live one is never touched.
 */
export function cleanVerdict(facts: WorktreeFacts, force: boolean): { remove: true } | { remove: false; why: string } {
  switch (stageOf(facts)) {
    case "settled":
      return { remove: true }
    case "ended":
      return force ? { remove: true } : { remove: false, why: "its loop ended but its branch is not settled yet (the plugin merges it when OpenCode runs in the project; --force removes it anyway)" }
    case "starting":
    case "running":
      return { remove: false, why: "its loop is still running" }
    case undefined:
      return { remove: false, why: "it has no worktree.json, so it is not known to be a worktree loop of ralph-loop" }
  }
}
