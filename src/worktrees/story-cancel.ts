// A story's loop in its slot, cancelled when its parallel run is (src/worktrees/parallel-run-job.ts cancelRun).
import { io, type Job } from "../effects/kernel.js"
import { log } from "../effects/jobs.js"

/** The loop cancelled through the slot's control channel; what it answered goes to the log. */
export function* cancelStoryLoop(path: string, story: string, via: string): Job {
  const answer = yield* io({ kind: "slot-cancel", path, via })
  yield* log("info", `story ${story}: its loop is cancelled (${via}): ${answer}`, { worktree: path })
}
