// How a completed worktree loop's branch comes back (`mergeStrategy`; src/worktrees/merge-plan.ts decides).
export const MERGE_STRATEGIES = ["ff-or-branch", "merge", "none"] as const
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number]
