// What a worktree loop knows of its worktree. The main instance writes it as
// `<worktree>/.opencode/ralph-loop/worktree.json` when it makes the worktree; the worktree's own
// OpenCode instance (where the loop runs) reads it when the loop starts, and keeps it in the loop's
// state with the outcome of the merge back.
import { z } from "zod"
import { MERGE_STRATEGIES } from "../config/merge-strategy.js"

export const WORKTREE_FILE = "worktree.json"

const mergeOutcomeSchema = z.object({
  result: z.enum(["fast-forwarded", "merged", "kept", "conflict", "nothing", "failed"]),
  /** For the user: what happened, and for a kept branch how to merge it. */
  detail: z.string(),
  /** The files a merge would leave in conflict. */
  files: z.array(z.string()).optional(),
  /** The worktree folder was removed after the merge. */
  removed: z.boolean().optional(),
})
export type MergeOutcome = z.infer<typeof mergeOutcomeSchema>

/** The main instance that launched a worktree loop: its process, and a token of that instance's life. */
const launcherSchema = z.object({ pid: z.number().int(), boot: z.string() })
export type Launcher = z.infer<typeof launcherSchema>

export const worktreeStateSchema = z.object({
  name: z.string(),
  branch: z.string(),
  /** The project directory the worktree was made from (its branch is merged there). */
  mainDirectory: z.string(),
  /** The user's branch and commit the worktree was made from (no branch: a detached HEAD). */
  base: z.object({ branch: z.string().optional(), commit: z.string() }),
  mergeStrategy: z.enum(MERGE_STRATEGIES),
  /** The main session the loop was started from: it shows the loop's progress. */
  fromSession: z.string().optional(),
  /** A story of a parallel plan run (`/ralph --prd --parallel N`): the main instance marks it done. */
  story: z.string().optional(),
  /**
   * The parallel run that made it (its id): an earlier run's worktree or archive of the same name is not this run's.
   */
  run: z.string().optional(),
  createdAt: z.number(),
  /**
   * Who launched it, written as the worktree is made: a launch whose launcher is gone before the loop was saved was
   * cut.
   */
  launch: launcherSchema.optional(),
  /** The flags of the /ralph that made it (settings for the loop), applied by the worktree's instance. */
  overrides: z.record(z.string(), z.unknown()).optional(),
  merge: mergeOutcomeSchema.optional(),
  /**
   * A slot of a parallel run (issue 40): the worktree is kept from story to story with its OpenCode instance;
   * `branch` is the story's (`ralph/<story name>`), and the story's loop files are archived under its name.
   */
  slot: z.literal(true).optional(),
  /** Its parallel run was cancelled (by whom): the story's `/ralph` in the slot starts no loop. */
  cancelled: z.string().optional(),
  /** Why a slot takes no more stories (a reset it could not make): it is kept as it is for the user. */
  retired: z.string().optional(),
})
export type WorktreeState = z.infer<typeof worktreeStateSchema>
