import type { LoopJobContext } from "../loop/job-context.js"
import type { ContinuationWatch } from "./watch.js"

/** A continuation job's context: a loop job's, and what the continuations know of sessions without a loop. */
export interface ContinuationJobContext extends LoopJobContext {
  readonly continuations: ContinuationWatch
}
