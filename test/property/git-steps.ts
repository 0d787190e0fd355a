// The steps of the git-layer property test, as data (fast-check generates, shrinks and prints
// them): loop iterations of an agent, checkpoints and rollbacks, the user's own edits meanwhile,
// autoCommit, worktree loops merged back, and what `clean` removes. Picks are taken modulo the
// candidates of the moment, so any step list can be played (a step that does not apply is skipped).
import fc from "fast-check"
import { MERGE_STRATEGIES, type MergeStrategy } from "../../src/worktrees/merge-plan.js"

export type UserEdit =
  | { op: "write"; pick: number }
  | { op: "delete"; pick: number }
  /** `git`: with `git mv` (a tracked file), else a plain rename on disk. */
  | { op: "rename"; pick: number; git: boolean }
  | { op: "stage"; pick: number }
  /** Back to the index's content (`git checkout -- file`). */
  | { op: "restore"; pick: number }
  /** `git add` of the picked files, then `git commit` of the whole index. */
  | { op: "commit"; picks: number[] }
  /** A pattern added to `.gitignore`, or taken out. */
  | { op: "ignore"; pick: number }
  /** Thousands of untracked files at once (or, when they are there, their removal). */
  | { op: "bulk" }

export type AgentEdit =
  | { op: "write"; pick: number }
  | { op: "delete"; pick: number }
  | { op: "rename"; pick: number; git: boolean }
  | { op: "stage"; pick: number }
  /** The agent puts a file back as HEAD has it (or removes one HEAD lacks). */
  | { op: "revert"; pick: number }
  /** The agent adds a pattern to the user's `.gitignore`, or takes one out. */
  | { op: "ignore"; pick: number }

export type WorktreeEdit =
  | { op: "write"; pick: number }
  | { op: "delete"; pick: number }
  | { op: "rename"; pick: number }
  /** The agent writes a file the project ignores and adds it anyway (`git add -f`). */
  | { op: "force-ignored"; pick: number }

export type Step =
  | { kind: "start"; loop: number }
  /** One iteration of the agent, then its checkpoint; `again`: the same iteration decided again (its checkpoint replaced). */
  | { kind: "iterate"; edits: AgentEdit[]; again: boolean }
  | { kind: "user"; edit: UserEdit }
  /** `/ralph-rollback` of a loop with checkpoints: by default, `--to-start`, or to the picked one. */
  | { kind: "rollback"; loop: number; to: "default" | "start" | number }
  | { kind: "auto-commit" }
  | { kind: "end" }
  /** `ralph-loop clean` of an ended loop: its checkpoints go. */
  | { kind: "clean-checkpoints"; loop: number }
  | { kind: "worktree"; withChanges: boolean }
  | { kind: "worktree-edit"; worktree: number; edits: WorktreeEdit[] }
  /** The worktree loop completes: its work committed, merged back by the strategy, removed when merged. */
  | { kind: "worktree-finish"; worktree: number; strategy: MergeStrategy }
  /** A worktree loop from start to end in one step: made, its agent's edits, completed. */
  | { kind: "worktree-loop"; withChanges: boolean; edits: WorktreeEdit[]; strategy: MergeStrategy }
  | { kind: "clean-worktrees"; force: boolean }

export interface RunConfig {
  /** The project is a folder inside the repository (worktree loops need the top folder: none then). */
  sub: boolean
  /** Thousands of untracked files may appear in this run (rare: they cost time). */
  bulk: boolean
  /** The user has uncommitted work (staged, changed, untracked) before the first loop. */
  dirty: boolean
}

const pick = fc.nat({ max: 999 })
const op = <T extends string>(value: T) => fc.constant(value)

const userEdit: fc.Arbitrary<UserEdit> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: op("write"), pick }) },
  { weight: 3, arbitrary: fc.record({ op: op("delete"), pick }) },
  { weight: 3, arbitrary: fc.record({ op: op("rename"), pick, git: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: op("stage"), pick }) },
  { weight: 1, arbitrary: fc.record({ op: op("restore"), pick }) },
  { weight: 2, arbitrary: fc.record({ op: op("commit"), picks: fc.array(pick, { maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ op: op("ignore"), pick }) },
)

const agentEdit: fc.Arbitrary<AgentEdit> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: op("write"), pick }) },
  { weight: 3, arbitrary: fc.record({ op: op("delete"), pick }) },
  { weight: 2, arbitrary: fc.record({ op: op("rename"), pick, git: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: op("stage"), pick }) },
  { weight: 1, arbitrary: fc.record({ op: op("revert"), pick }) },
  { weight: 1, arbitrary: fc.record({ op: op("ignore"), pick }) },
)

const worktreeEdit: fc.Arbitrary<WorktreeEdit> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: op("write"), pick }) },
  { weight: 2, arbitrary: fc.record({ op: op("delete"), pick }) },
  { weight: 2, arbitrary: fc.record({ op: op("rename"), pick }) },
  { weight: 1, arbitrary: fc.record({ op: op("force-ignored"), pick }) },
)

export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: op("start"), loop: pick }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: op("iterate"),
      edits: fc.array(agentEdit, { minLength: 1, maxLength: 4 }),
      again: fc.nat({ max: 4 }).map((n) => n === 4),
    }),
  },
  { weight: 8, arbitrary: fc.record({ kind: op("user"), edit: userEdit }) },
  // Only in a run with `bulk` (one in eight): thousands of files cost time.
  { weight: 1, arbitrary: fc.record({ kind: op("user"), edit: fc.record({ op: op("bulk") }) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: op("rollback"), loop: pick, to: fc.oneof(op("default"), op("start"), pick) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: op("auto-commit") }) },
  { weight: 1, arbitrary: fc.record({ kind: op("end") }) },
  { weight: 1, arbitrary: fc.record({ kind: op("clean-checkpoints"), loop: pick }) },
  { weight: 2, arbitrary: fc.record({ kind: op("worktree"), withChanges: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: op("worktree-edit"),
      worktree: pick,
      edits: fc.array(worktreeEdit, { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: op("worktree-finish"),
      worktree: pick,
      strategy: fc.constantFrom<MergeStrategy>(...MERGE_STRATEGIES),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: op("worktree-loop"),
      withChanges: fc.boolean(),
      edits: fc.array(worktreeEdit, { minLength: 1, maxLength: 3 }),
      strategy: fc.constantFrom<MergeStrategy>(...MERGE_STRATEGIES),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: op("clean-worktrees"), force: fc.boolean() }) },
)

export const runConfig: fc.Arbitrary<RunConfig> = fc.record({
  sub: fc.nat({ max: 3 }).map((n) => n === 3),
  // Shrinks towards false (a nat shrinks to 0).
  bulk: fc.nat({ max: 7 }).map((n) => n === 7),
  dirty: fc.boolean(),
})

/**
 * Mostly a loop starts first (most steps act on one); in one run of four none does until a step
 * starts one (worktree loops alone, a main tree the agent leaves clean). Then anything, in any order.
 */
export const steps = (maxLength: number): fc.Arbitrary<Step[]> =>
  fc
    .tuple(fc.nat({ max: 3 }), fc.array(step, { minLength: 1, maxLength: maxLength - 1, size: "max" }))
    .map(([first, list]): Step[] => (first === 3 ? list : [{ kind: "start", loop: 0 }, ...list]))
