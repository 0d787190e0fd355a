// `ralph-loop clean` does project-wide work (it removes loops' files and worktrees), so it is done by
// the holder of the project's lease (src/owner/lease-rule.ts), as an OpenCode process does its watch
// and merges. clean takes the lease when nobody live holds it (a holder that died — its pid gone, or
// no heartbeat for STALE_MS — is taken over), beats it while it runs and releases it when done. While
// a live OpenCode holds it (OpenCode is open on the project), that OpenCode is asked to do the clean
// through the control channel (`askHolder`), and its answer is printed. Another `ralph-loop clean`
// holding it: refused, naming it.
import { randomUUID } from "node:crypto"
import type { ControlOutcome } from "../control/client.js"
import { describeHeartbeat, HEARTBEAT_MS } from "../owner/heartbeat.js"
import { HOST } from "../owner/heartbeat-files.js"
import { LEASE_DIR, type LeaseView, ProjectLease } from "../owner/project-lease.js"

/** Exit status when another process holds the lease. */
const LEASE_HELD_EXIT = 1

const WHAT = "ralph-loop clean"

export async function withCleanLease(
  project: string,
  out: (line: string) => void,
  work: () => Promise<number>,
  askHolder: () => Promise<ControlOutcome>,
): Promise<number> {
  const me = { pid: process.pid, host: HOST, boot: randomUUID(), what: WHAT }
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
    if (view.holder?.what === WHAT || !view.holder) {
      out(
        `ralph-loop clean: nothing removed: the project's lease is held by ${who}. ` +
          "Wait for it to end and run clean again.",
      )
      return LEASE_HELD_EXIT
    }
    return byHolder(who, askHolder, out)
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

/** The clean done by the lease holder (an OpenCode open on the project): its lines, or why it was not done. */
async function byHolder(
  who: string,
  askHolder: () => Promise<ControlOutcome>,
  out: (line: string) => void,
): Promise<number> {
  out(`ralph-loop clean: the project's lease is held by ${who}; it does the clean`)
  const answer = await askHolder()
  if (answer.status === "no-answer" || (answer.status === "refused" && !answer.message.startsWith("ralph-loop clean:")))
    out(`ralph-loop clean: nothing removed by ${who}: ${answer.message}`)
  else for (const line of answer.message.split("\n")) out(line)
  return answer.status === "done" ? 0 : LEASE_HELD_EXIT
}
