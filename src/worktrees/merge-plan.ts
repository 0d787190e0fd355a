// What a completed worktree loop's branch does by `mergeStrategy` (pure: the git facts come in).
// `ff-or-branch` fast-forwards the user's branch only when that moves nothing of theirs; `merge`
// makes a merge commit unless it would conflict; `none` leaves the branch. Anything else keeps the
// branch and says how to merge it by hand.

export const MERGE_STRATEGIES = ["ff-or-branch", "merge", "none"] as const
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number]

export interface MergeFacts {
  strategy: MergeStrategy
  branch: string
  /** The loop's branch has commits the user's branch lacks. */
  ahead: boolean
  /** The main work tree is on the branch the worktree was made from. */
  onBaseBranch: boolean
  baseBranch: string | undefined
  /** The user's branch is an ancestor of the loop's: a fast-forward moves nothing of theirs. */
  fastForward: boolean
  /** The main work tree has no uncommitted change (the loop's own files aside). */
  mainClean: boolean
  /** Files a merge would leave in conflict (only looked at for `merge`). */
  conflicts: readonly string[]
}

export type MergeAction =
  | { kind: "nothing"; reason: string }
  | { kind: "fast-forward" }
  | { kind: "merge" }
  | { kind: "keep"; reason: string }
  | { kind: "conflict"; files: readonly string[] }

export function mergeAction(f: MergeFacts): MergeAction {
  if (!f.ahead) return { kind: "nothing", reason: "the loop left no change to merge" }
  if (f.strategy === "none") return { kind: "keep", reason: "mergeStrategy is none" }
  if (!f.onBaseBranch)
    return {
      kind: "keep",
      reason: f.baseBranch
        ? `the main work tree is no longer on ${f.baseBranch}`
        : "the worktree was made from a detached HEAD",
    }
  if (f.strategy === "ff-or-branch") {
    if (!f.fastForward) return { kind: "keep", reason: `${f.baseBranch} has moved since the loop began` }
    if (!f.mainClean) return { kind: "keep", reason: "the main work tree has uncommitted changes" }
    return { kind: "fast-forward" }
  }
  if (f.conflicts.length > 0) return { kind: "conflict", files: f.conflicts }
  return { kind: "merge" }
}

/** The command that merges the kept branch by hand. */
export const mergeHint = (branch: string): string => `git merge ${branch}`
