// The settings of the plugin's git work: commits of plan stories, and loops in their own worktrees.
import { z } from "zod"
import { MERGE_STRATEGIES } from "./merge-strategy.js"

/** Keys in the settings' order. */
export const gitSettingSchemas = {
  autoCommit: z
    .boolean()
    .describe(
      "After the plugin verified a plan story done, commit the loop's changed files on the current branch as " +
        '"story <id>: <title>" (with the repository\'s hooks; never on a detached HEAD or with a conflict). A ' +
        "file you edit yourself while the loop runs counts as the loop's (the plugin cannot tell who wrote it): " +
        "keep your own edits out of the project meanwhile, or leave this off.",
    ),
  worktree: z
    .boolean()
    .describe(
      "Every /ralph with a task runs in its own git worktree (.opencode/ralph-loop/worktrees/<NAME>, branch " +
        "ralph/<NAME>) and is merged back by mergeStrategy when it completes; as the flag --worktree. A plan loop " +
        "(--prd) still runs in the project's tree; --prd --parallel N runs its stories in worktrees.",
    ),
  mergeStrategy: z
    .enum(MERGE_STRATEGIES)
    .describe(
      "What a completed worktree loop's branch does: ff-or-branch (fast-forward your branch if it has not moved " +
        "and the work tree is clean, else keep the branch and say how to merge), merge (a merge commit; a conflict " +
        "keeps the branch and names the files), none (keep the branch).",
    ),
  maxParallelLoops: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(16, "must be at most 16")
    .describe(
      "Worktree loops of one project running at once (/ralph --worktree, /ralph --prd --parallel N); a loop beyond " +
        "it is refused.",
    ),
} as const
