// LoopManager: every loop of one plugin instance (one project directory) and the bookkeeping of
// their phases. It decides and records; it performs no I/O. Time comes in as an argument.
import type { Loop, LoopSettings, StopReason } from "./loop.js"

export class LoopManager {
  /** Live loops by the session they live in now. */
  private readonly bySession = new Map<string, Loop>()

  /** Starts a loop in `sessionID`; a live loop already there is replaced (and returned). */
  start(sessionID: string, task: string, settings: LoopSettings, now: number): { loop: Loop; replaced?: Loop } {
    const previous = this.bySession.get(sessionID)
    if (previous) this.stop(previous, "replaced")
    const loop: Loop = {
      id: sessionID,
      task,
      settings,
      startedAt: now,
      sessionID,
      lineage: [],
      iteration: 1,
      retries: 0,
      phase: "running",
      sawBusy: false,
      needsInstruction: true,
    }
    this.bySession.set(sessionID, loop)
    return previous ? { loop, replaced: previous } : { loop }
  }

  /** The live loop living in `sessionID` now, if any. */
  get(sessionID: string): Loop | undefined {
    return this.bySession.get(sessionID)
  }

  /** The live loop that lives in `sessionID` now or lived there before. */
  find(sessionID: string): Loop | undefined {
    return this.bySession.get(sessionID) ?? this.all().find((loop) => loop.lineage.includes(sessionID))
  }

  all(): Loop[] {
    return [...this.bySession.values()]
  }

  get size(): number {
    return this.bySession.size
  }

  onBusy(sessionID: string): void {
    const loop = this.bySession.get(sessionID)
    if (loop?.phase === "running") loop.sawBusy = true
  }

  /**
   * Claims the idle of `sessionID` for a decision. Only a running loop whose turn was seen busy
   * qualifies, so duplicate idles and the idles of the plugin's own calls yield nothing.
   */
  takeIdle(sessionID: string): Loop | undefined {
    const loop = this.bySession.get(sessionID)
    if (!loop || loop.phase !== "running" || !loop.sawBusy) return undefined
    loop.phase = "deciding"
    loop.sawBusy = false
    return loop
  }

  /** Marks the turn that ended in `messageID` as decided. */
  decided(loop: Loop, messageID: string | undefined): void {
    if (messageID !== undefined) loop.lastDecidedMessageID = messageID
  }

  /** Back to waiting for a turn, without having sent anything (an ignored or reported idle). */
  keepWatching(loop: Loop): void {
    if (loop.phase === "stopped") return
    loop.phase = "running"
  }

  beginRestart(loop: Loop): void {
    loop.phase = "restarting"
  }

  /** The next prompt is about to go to `sessionID` (the same session, or a fresh one). */
  nextIteration(loop: Loop, sessionID: string): void {
    if (sessionID !== loop.sessionID) {
      this.bySession.delete(loop.sessionID)
      loop.lineage.push(loop.sessionID)
      loop.sessionID = sessionID
      this.bySession.set(sessionID, loop)
    }
    loop.iteration += 1
    loop.retries += 1
    loop.phase = "running"
    loop.sawBusy = false
  }

  pause(loop: Loop, reason: string): void {
    if (loop.phase === "stopped") return
    loop.phase = "paused"
    loop.pauseReason = reason
  }

  /** The user spoke in a paused loop's session: the loop watches that turn again. */
  resume(loop: Loop): void {
    if (loop.phase !== "paused") return
    loop.phase = "running"
    loop.sawBusy = false
    delete loop.pauseReason
  }

  stop(loop: Loop, reason: StopReason): void {
    if (loop.phase === "stopped") return
    loop.phase = "stopped"
    loop.stopReason = reason
    if (this.bySession.get(loop.sessionID) === loop) this.bySession.delete(loop.sessionID)
  }

  /** A session was deleted: a loop living in it ends (its earlier sessions do not matter). */
  sessionDeleted(sessionID: string): Loop | undefined {
    const loop = this.bySession.get(sessionID)
    if (!loop) return undefined
    this.stop(loop, "session-deleted")
    return loop
  }
}
