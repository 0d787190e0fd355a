// `ralph-loop clean` does project-wide work (it removes loops' files and worktrees), so it takes the
// project's lease first (src/owner/lease-rule.ts), as an OpenCode process does for its watch and
// merges: while a live OpenCode holds it (OpenCode is open on the project), clean refuses and names
// it; a holder that died (its pid gone, or no heartbeat for STALE_MS) is taken over. The lease is
// beaten while clean runs and released when it is done.
import { randomUUID } from "node:crypto"
import { describeHeartbeat, HEARTBEAT_MS } from "../owner/heartbeat.js"
import { HOST } from "../owner/heartbeat-files.js"
import { LEASE_DIR, type LeaseView, ProjectLease } from "../owner/project-lease.js"

/** Exit status when another process holds the lease. */
const LEASE_HELD_EXIT = 1

export async function withCleanLease(
  project: string,
  out: (line: string) => void,
  work: () => Promise<number>,
): Promise<number> {
  const me = { pid: process.pid, host: HOST, boot: randomUUID(), what: "ralph-loop clean" }
  const lease = new ProjectLease(project, me)
  let view: LeaseView
  try {
    view = await lease.tick()
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    out(`ralph-loop clean: the project's lease (${LEASE_DIR}/) could not be taken: ${why}; nothing was removed`)
    return 1
  }
  if (view.kind === "held") {
    const unreadable = "a process (its lease file is unreadable)"
    const who = view.holder ? describeHeartbeat(view.holder, Date.now(), true) : unreadable
    out(
      `ralph-loop clean: nothing removed: the project's lease is held by ${who}. ` +
        "It may be merging or watching worktree loops; close OpenCode on this project " +
        "(or wait for `ralph-loop run` to end) and run clean again.",
    )
    return LEASE_HELD_EXIT
  }
  let beating: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => (beating = lease.tick().catch(() => undefined)), HEARTBEAT_MS)
  try {
    return await work()
  } finally {
    clearInterval(timer)
    await beating
    await lease.release()
  }
}
