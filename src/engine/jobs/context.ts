// What the engine's jobs get: everything a loop's and a continuation's job may use.
import type { ContinuationJobContext } from "../../continuations/job-context.js"

export type JobContext = ContinuationJobContext
