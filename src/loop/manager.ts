// LoopManager: every loop of one plugin instance (one project directory) and the bookkeeping of
// their phases. It decides and records; it performs no I/O. Time comes in as an argument.
import { recordCall } from "./call-window.js"
import type { LoopUpdate } from "./decide.js"
import { newLoop, type Loop, type LoopSettings, type StopReason, type Wait } from "./loop.js"
import { emptyTurnEvents, type TurnEvents } from "./turn-events.js"

export class LoopManager {
  /** Live loops by the session they live in now. */
  private readonly bySession = new Map<string, Loop>()

  /** Starts a loop in `sessionID`; a live loop already there is replaced (and returned). */
  start(sessionID: string, task: string, settings: LoopSettings, now: number): { loop: Loop; replaced?: Loop } {
    const previous = this.bySession.get(sessionID)
    if (previous) this.stop(previous, "replaced")
    const loop = newLoop(sessionID, task, settings, now)
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

  onBusy(sessionID: string, retry = false): void {
    const loop = this.bySession.get(sessionID)
    if (!loop) return
    loop.busyEpoch += 1
    if (loop.phase === "running") loop.sawBusy = true
    if (retry) loop.turnEvents.retried = true
  }

  /** Records what OpenCode reports about the turn under way in `sessionID`. */
  onTurnEvent(sessionID: string, record: (events: TurnEvents) => void): void {
    const loop = this.bySession.get(sessionID)
    if (loop && loop.phase !== "stopped") record(loop.turnEvents)
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

  /** Marks the turn that ended in `messageID` as decided and records the policies' new state. */
  decided(loop: Loop, messageID: string | undefined, update: LoopUpdate): void {
    if (messageID !== undefined) loop.lastDecidedMessageID = messageID
    Object.assign(loop, update)
  }

  /** Back to waiting for a turn, without having sent anything. `busy`: a turn is already under way. */
  keepWatching(loop: Loop, busy = false): void {
    if (loop.phase === "stopped") return
    loop.phase = "running"
    loop.sawBusy = busy
  }

  beginRestart(loop: Loop): void {
    loop.phase = "restarting"
    delete loop.wait
  }

  /** A plugin call that reaches the model (prompt or summary) counts toward maxCallsPerHour. */
  recordCall(loop: Loop, now: number): void {
    loop.calls = recordCall(loop.calls, loop.settings, now)
  }

  /** The next prompt is about to go to `sessionID` (the same session, or a fresh one). */
  nextIteration(loop: Loop, sessionID: string): void {
    if (loop.phase === "stopped") return
    if (sessionID !== loop.sessionID) {
      this.bySession.delete(loop.sessionID)
      loop.lineage.push(loop.sessionID)
      loop.sessionID = sessionID
      this.bySession.set(sessionID, loop)
    }
    loop.iteration += 1
    loop.retries += 1
    this.promptSent(loop)
  }

  /** A prompt that repeats the current iteration (after a back-off) is about to be sent. */
  promptSent(loop: Loop): void {
    if (loop.phase === "stopped") return
    loop.phase = "running"
    loop.sawBusy = false
    loop.turnEvents = emptyTurnEvents()
    delete loop.wait
  }

  wait(loop: Loop, wait: Wait, detail: string): void {
    if (loop.phase === "stopped") return
    loop.phase = "waiting"
    loop.wait = wait
    loop.detail = detail
  }

  pause(loop: Loop, reason: string): void {
    if (loop.phase === "stopped") return
    loop.phase = "paused"
    loop.detail = reason
    delete loop.wait
  }

  /** The user spoke in a paused or waiting loop's session: the loop watches that turn again. */
  resume(loop: Loop): boolean {
    if (loop.phase !== "paused" && loop.phase !== "waiting") return false
    this.promptSent(loop)
    delete loop.detail
    return true
  }

  stop(loop: Loop, reason: StopReason, detail?: string): void {
    if (loop.phase === "stopped") return
    loop.phase = "stopped"
    loop.stopReason = reason
    if (detail !== undefined) loop.detail = detail
    delete loop.wait
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
