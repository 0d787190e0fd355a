// What every job of a loop shares: the one writer of loop state, the clock, the instance's settings.
import type { Settings } from "../config/schema.js"
import type { PlanRequests } from "../plan/requests.js"
import type { LoopManager } from "./manager.js"

export interface LoopJobContext {
  /** The project directory (files are named relative to it). */
  readonly directory: string
  readonly manager: LoopManager
  /** /ralph-plan requests waiting for their turn to end. */
  readonly plans: PlanRequests
  now(): number
  /** The instance's settings as they are now (recovery reads `resumeOnStart`). */
  settings(): Settings
}
