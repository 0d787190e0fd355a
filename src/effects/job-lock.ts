// One job at a time where two would step on each other (a parallel run's record, the count of
// worktree loops a launch checks against maxParallelLoops, a merge into the user's branch). A job
// takes the lock with the `lock` effect — production waits for it, the simulator leaves the job
// waiting until the holder has let go — and lets go when it ends, however it ends.
import type { Job } from "../engine/effects.js"

export class JobLock {
  private held = false
  private readonly waiting: Array<() => void> = []

  constructor(readonly name: string) {}

  /** Takes the lock if it is free. */
  tryTake(): boolean {
    if (this.held) return false
    this.held = true
    return true
  }

  /** Resolves once the lock is this caller's. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve()
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  /** Lets go: the next waiter (if any) holds it now. */
  release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.held = false
  }

  get isHeld(): boolean {
    return this.held
  }
}

/** Runs `job` holding `lock`. */
export function* locked<T>(lock: JobLock, job: Job<T>): Job<T> {
  yield { kind: "lock", lock }
  try {
    return yield* job
  } finally {
    lock.release()
  }
}
