// `ralph-loop clean` asked of the OpenCode that holds the project's lease (src/control/): a job of
// its interpreter, holding the lock of the merges into the user's branch, so no worktree is settled,
// merged or archived while clean looks at the worktrees and merged/ — the reason clean takes the lease.
import { io, type Job } from "../effects/kernel.js"
import { type JobLock, locked } from "../effects/job-lock.js"
import type { CleanRequest } from "./clean-project.js"

export function* cleanJob(request: CleanRequest, merges: JobLock): Job<{ ok: boolean; lines: string[] }> {
  return yield* locked(merges, io({ kind: "project-clean", request }))
}
