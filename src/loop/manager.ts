// LoopManager: every loop of one plugin instance (one project directory) and the bookkeeping of
// their phases. It decides and records; it performs no I/O. Time comes in as an argument.
import { recordCall } from "./call-window.js"
import type { Decision, LoopUpdate } from "./decide.js"
import { newLoop, type Loop, type LoopSettings, type PendingRestart, type StopReason, type Wait } from "./loop.js"
import { emptyTurnEvents, type TurnEvents } from "./turn-events.js"

export type LoopListener = (loop: Loop, event: string) => void

export class LoopManager {
  /** Live loops by the session they live in now. */
  private readonly bySession = new Map<string, Loop>()

  /** `onChange` hears every change worth keeping (the store persists it); the manager does no I/O. */
  constructor(private readonly onChange: LoopListener = () => undefined) {}

  private changed(loop: Loop, event: string): void {
    this.onChange(loop, event)
  }

  /** Takes back a loop recovered from disk after OpenCode restarted. */
  adopt(loop: Loop): void {
    const previous = this.bySession.get(loop.sessionID)
    if (previous && previous !== loop) this.stop(previous, "replaced")
    this.bySession.set(loop.sessionID, loop)
  }

  /** Claims a recovered loop for a decision on its session's last turn (as if an idle came). */
  claim(loop: Loop): boolean {
    if (loop.phase !== "running" && loop.phase !== "restarting") return false
    loop.phase = "deciding"
    return true
  }

  addHint(loop: Loop, hint: string): void {
    loop.hints.push(hint)
    this.changed(loop, "hint")
  }

  /** Starts a loop in `sessionID`; a live loop already there is replaced (and returned). */
  start(sessionID: string, task: string, settings: LoopSettings, now: number): { loop: Loop; replaced?: Loop } {
    const previous = this.bySession.get(sessionID)
    if (previous) this.stop(previous, "replaced")
    const loop = newLoop(sessionID, task, settings, now)
    this.bySession.set(sessionID, loop)
    this.changed(loop, "started")
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

  /**
   * Marks the turn that ended in `messageID` as decided and records the policies' new state — and a
   * restart, in the same write: a crash after it must not decide the same turn twice.
   */
  decided(loop: Loop, messageID: string | undefined, update: LoopUpdate, decision: Decision): void {
    if (messageID !== undefined) loop.lastDecidedMessageID = messageID
    Object.assign(loop, update)
    loop.lastDecision = decision.type
    if (decision.type === "restart") this.pendRestart(loop, decision)
    this.changed(loop, "decided")
  }

  /** Keeps a fresh session an earlier, abandoned restart already created (it is still empty). */
  private pendRestart(loop: Loop, { fresh, note, feedback }: PendingRestart): void {
    const sessionID = loop.restart?.sessionID
    loop.restart = { fresh, ...(note ? { note } : {}), ...(feedback ? { feedback } : {}), ...(sessionID ? { sessionID } : {}) }
  }

  /** Back to waiting for a turn, without having sent anything. `busy`: a turn is already under way. */
  keepWatching(loop: Loop, busy = false): void {
    if (loop.phase === "stopped") return
    loop.phase = "running"
    loop.sawBusy = busy
  }

  /** False when the loop was stopped or paused meanwhile: then nothing may be started. */
  beginRestart(loop: Loop, restart: PendingRestart): boolean {
    if (loop.phase === "stopped" || loop.phase === "paused") return false
    loop.phase = "restarting"
    this.pendRestart(loop, restart)
    delete loop.wait
    this.changed(loop, "restarting")
    return true
  }

  /** The restart created its fresh session (kept on disk before anything else happens in it). */
  sessionCreated(loop: Loop, sessionID: string): void {
    if (!loop.restart) return
    loop.restart.sessionID = sessionID
    this.changed(loop, "session-created")
  }

  /** An earlier session was archived and deleted (or is kept for good). */
  retired(loop: Loop, sessionID: string): void {
    loop.retiring = loop.retiring.filter((id) => id !== sessionID)
    this.changed(loop, "retired")
  }

  /** The user wrote in the loop's session (not a control command). */
  onUserMessage(loop: Loop): void {
    loop.userEpoch += 1
  }

  /** A plugin call that reaches the model (prompt or summary) counts toward maxCallsPerHour. */
  recordCall(loop: Loop, now: number): void {
    loop.calls = recordCall(loop.calls, loop.settings, now)
  }

  /**
   * The next prompt is about to go to `sessionID` (the same session, or a fresh one; `retireOld`:
   * the old one is to be archived and deleted). False (nothing changed) when the loop stopped, or
   * another live loop already lives in `sessionID`.
   */
  nextIteration(loop: Loop, sessionID: string, retireOld = false): boolean {
    if (loop.phase === "stopped") return false
    const occupant = this.bySession.get(sessionID)
    if (occupant && occupant !== loop) return false
    if (sessionID !== loop.sessionID) {
      this.bySession.delete(loop.sessionID)
      loop.lineage.push(loop.sessionID)
      if (retireOld) loop.retiring.push(loop.sessionID)
      loop.sessionID = sessionID
      this.bySession.set(sessionID, loop)
    }
    delete loop.restart
    loop.iteration += 1
    loop.retries += 1
    this.promptSent(loop, "iteration")
    return true
  }

  /** A prompt that repeats the current iteration (after a back-off) is about to be sent. */
  promptSent(loop: Loop, event = "prompt"): void {
    if (loop.phase === "stopped") return
    loop.phase = "running"
    loop.sawBusy = false
    loop.turnEvents = emptyTurnEvents()
    loop.iterationStartedAt = Date.now()
    delete loop.wait
    this.changed(loop, event)
  }

  wait(loop: Loop, wait: Wait, detail: string): void {
    if (loop.phase === "stopped") return
    loop.phase = "waiting"
    loop.wait = wait
    loop.detail = detail
    this.changed(loop, `waiting:${wait.reason}`)
  }

  pause(loop: Loop, reason: string): void {
    if (loop.phase === "stopped") return
    loop.phase = "paused"
    loop.detail = reason
    delete loop.wait
    this.changed(loop, "paused")
  }

  /** The user spoke in a paused or waiting loop's session: the loop watches that turn again. */
  resume(loop: Loop): boolean {
    if (loop.phase !== "paused" && loop.phase !== "waiting") return false
    delete loop.detail
    this.promptSent(loop, "resumed")
    return true
  }

  stop(loop: Loop, reason: StopReason, detail?: string): void {
    if (loop.phase === "stopped") return
    loop.phase = "stopped"
    loop.stopReason = reason
    if (detail !== undefined) loop.detail = detail
    delete loop.wait
    if (this.bySession.get(loop.sessionID) === loop) this.bySession.delete(loop.sessionID)
    this.changed(loop, `stopped:${reason}`)
  }

  /** A session was deleted: a loop living in it ends (its earlier sessions do not matter). */
  sessionDeleted(sessionID: string): Loop | undefined {
    const loop = this.bySession.get(sessionID)
    if (!loop) return undefined
    this.stop(loop, "session-deleted")
    return loop
  }
}
