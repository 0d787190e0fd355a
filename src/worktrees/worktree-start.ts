// What /ralph --worktree (and a parallel run's story) asks for, and what its launch gives back.
import type { Settings } from "../config/schema.js"
import type { WorktreeState } from "./worktree-state.js"

export interface WorktreeRequest {
  name?: string
  withChanges: boolean
}

export interface WorktreeStart {
  task: string
  overrides: Partial<Settings>
  request: WorktreeRequest
  /** A story of a parallel plan run, and the run's id. */
  story?: string
  run?: string
  /**
   * The run's slot the story runs in (`request.name` is then the story's name, its branch `ralph/<story name>`): a
   * new one, or one that ran an earlier story (`path`: it is reset, its OpenCode instance kept).
   */
  slot?: { name: string; path?: string }
}

/** `full`: refused only because maxParallelLoops worktree loops run already (a later try may start). */
export type WorktreeStarted =
  | { ok: true; state: WorktreeState; path: string; sessionID: string }
  | { ok: false; error: string; full?: true; slotRetired?: true }
