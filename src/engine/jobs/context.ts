// What every job of the loop shares: the one writer of loop state, the clock, the instance's settings.
import type { Settings } from "../../config/schema.js"
import type { ContinuationWatch } from "../../continuations/watch.js"
import type { LoopManager } from "../../loop/manager.js"
import type { PlanRequests } from "../../plan/requests.js"

export interface JobContext {
  /** The project directory (files are named relative to it). */
  readonly directory: string
  readonly manager: LoopManager
  /** /ralph-plan requests waiting for their turn to end. */
  readonly plans: PlanRequests
  /** What the continuations outside /ralph know of the sessions without a loop. */
  readonly continuations: ContinuationWatch
  now(): number
  /** The instance's settings as they are now (recovery reads `resumeOnStart`). */
  settings(): Settings
}
