// After a restart of OpenCode, a worktree loop's instance is not running: the main instance wakes
// it with a call into the worktree's directory (OpenCode starts the instance there, whose plugin
// takes its loop back). A call that fails is logged; the loop is then woken at OpenCode's next start.
import { io, type Job } from "../engine/effects.js"

export function* wakeWorktree(path: string): Job {
  yield* io({ kind: "worktree-wake", path })
}
