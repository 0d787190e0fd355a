// What the hooks of one plugin instance share. Built once per instance by `server()`; nothing here
// is module-level, because OpenCode runs one instance per project directory in one process.
import type { LoopRunner } from "./runner.js"
import type { ControlTurns } from "./control-turns.js"
import type { LiveSettings } from "../config/live-settings.js"
import type { ContinuationWatch } from "../continuations/watch.js"
import type { LoopManager } from "../loop/manager.js"
import type { ProjectMemory } from "../memory/memory-store.js"
import type { Host } from "../host/port.js"
import type { PlanRequests } from "../plan/requests.js"
import type { SavedLoop } from "../store/saved-loops.js"
import type { IterationRow } from "../status/history.js"
import type { WorktreeWatch } from "../worktrees/worktree-watch.js"
import type { ParallelPlan } from "../worktrees/parallel-plan.js"
import type { Launcher, WorktreeState } from "../worktrees/worktree-state.js"

export interface RalphContext {
  readonly directory: string
  readonly api: Host
  readonly manager: LoopManager
  /** /ralph-plan requests waiting for their turn to end. */
  readonly plans: PlanRequests
  readonly runner: LoopRunner
  readonly settings: LiveSettings
  /** The project memory (.opencode/ralph-loop/memory.md). */
  readonly memory: ProjectMemory
  /** What the continuations outside /ralph know of the sessions without a loop. */
  readonly continuations: ContinuationWatch
  /** activation "always": root sessions created since load that have not had a message yet. */
  readonly newSessions: Set<string>
  /** Which turn is a control command's own (sent without the session's history). */
  readonly controlTurns: ControlTurns
  /** The `limit` newest loops on disk, ended ones included (never rejects). */
  savedLoops(limit: number): Promise<SavedLoop[]>
  /** A loop's decided iterations from the journal, once every change made so far is written (never rejects). */
  loopHistory(loop: { id: string; startedAt: number }): Promise<IterationRow[]>
  /** The worktree loops started from this project (merged back as they complete). */
  readonly worktrees: WorktreeWatch
  /** /ralph --prd --parallel N: the run of a plan's stories in worktree loops. */
  readonly parallel: ParallelPlan
  /** This instance, as the worktree loops it launches record it (a restart's instance is another). */
  readonly launcher: Launcher
  /**
   * This instance's own worktree, when its directory is one a worktree loop runs in: read at each ask, since a slot
   * of a parallel run takes story after story in one instance (issue 40).
   */
  worktree(): WorktreeState | undefined
  now(): number
}
