// What the client says when no process took its request: who should have — the loop's owner, or
// the project's lease holder — and whether it runs, from their heartbeats. Never throws.
import { describeHeartbeat, STALE_MS } from "../owner/heartbeat.js"
import { decideLease } from "../owner/lease-rule.js"
import { aliveHere } from "../owner/heartbeat-files.js"
import { readLease } from "../owner/project-lease.js"
import { readOthersLoops } from "./route-facts.js"

export async function nobodyTookIt(directory: string, loop: string | undefined, now = Date.now()): Promise<string> {
  try {
    if (loop !== undefined) {
      const loops = await readOthersLoops(directory, undefined, now)
      const found = loops.find((l) => l.id === loop) ?? loops.find((l) => l.id.startsWith(loop))
      if (found?.owner) return `The loop ${found.id} is run by ${found.owner.described}.`
    }
    const nobody = { pid: -1, host: "", boot: "" }
    const lease = decideLease(await readLease(directory), nobody, now, (r) => aliveHere(r, now), STALE_MS)
    if (lease.kind === "held" && lease.holder)
      return `The project's lease is held by ${describeHeartbeat(lease.holder, now, true)}.`
    return "No running OpenCode holds the project's lease."
  } catch {
    return ""
  }
}
