// The sessions a `ralph-loop run` counts as its own: its loop's (current, earlier, review) and, on a
// server it attached to, the subagents' under those. Permission requests are answered only for these.
import type { HostServer } from "../../host/server-port.js"
import type { Loop } from "../../loop/loop.js"

/** How far up a session's parents are looked for one of the run's. */
const MAX_DEPTH = 8

export class RunSessions {
  private readonly ids = new Set<string>()
  private readonly parents = new Map<string, string | undefined>()

  has(id: string): boolean {
    return this.ids.has(id)
  }

  add(id: string): void {
    this.ids.add(id)
  }

  /** The loop's sessions: its current one, the earlier ones, its review's. */
  note(loop: Loop): void {
    for (const id of [loop.sessionID, ...loop.lineage, ...(loop.review?.session ? [loop.review.session] : [])]) {
      this.ids.add(id)
    }
  }

  /** A session is the run's: one of its loop's, or a subagent's under one of those. A server the runner started
   * holds only the run's (`everyOne`). */
  async belongs(server: HostServer, sessionID: string, everyOne: boolean): Promise<boolean> {
    if (everyOne) return true
    for (let id: string | undefined = sessionID, depth = 0; id && depth < MAX_DEPTH; depth += 1) {
      if (this.ids.has(id)) return true
      if (!this.parents.has(id)) this.parents.set(id, await server.parentOf(id))
      id = this.parents.get(id)
    }
    return false
  }
}
