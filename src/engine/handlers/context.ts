// What production's handlers (the other files here) are given: the instance's services, and the few
// things the interpreter itself keeps (its clock, whether it was disposed, its timers and jobs).
import type { Job } from "../../effects/kernel.js"
import type { Loop } from "../../loop/loop.js"
import type { ProjectMemory } from "../../memory/memory-store.js"
import type { Host } from "../../host/port.js"
import type { CrashPoint } from "../../host/faults.js"
import type { LoopStore } from "../../store/loop-store.js"
import type { ProgressFile } from "../../store/progress-file.js"
import type { CheckGroups } from "../../checks/run-checks.js"

export interface HandlerContext {
  readonly directory: string
  readonly api: Host
  readonly store: LoopStore
  readonly memory: ProjectMemory
  readonly progress: ProgressFile
  /** The process groups of the checks running now: killed on dispose. */
  readonly checkGroups: CheckGroups
  now(): number
  /** Throws once the instance was disposed: work under way must not reach OpenCode's sessions then. */
  assertLive(): void
  /** The project's place in its git repository (undefined: not a repository), asked once. */
  repositoryPrefix(): Promise<string | undefined>
  reached(point: CrashPoint): void
  schedule(loop: Loop, until: number): void
  start(label: string, job: Job): void
  /** Cancels the loop running in another directory (a slot's), through its control channel: what it answered. */
  cancelLoopIn(directory: string, via: string): Promise<string>
}
