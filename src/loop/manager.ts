// LoopManager: every loop of one plugin instance (one project directory), and the one writer of
// their state. Each method is named for what happened; it records the change and tells the
// listener (the store persists it). It performs no I/O; time comes in as an argument. This file
// holds the phase changes (see AGENTS.md); what the loop learns on the way is in facts.ts, which
// loop lives where in registry.ts.
import type { Breaker } from "./breaker.js"
import type { Decision, LoopUpdate } from "./decide.js"
import { LoopFacts } from "./facts.js"
import type { ResumeHow } from "./go-on.js"
import {
  newLoop,
  type Loop,
  type LoopSettings,
  type PauseCause,
  type PendingRestart,
  type StopReason,
  type Wait,
} from "./loop.js"
import type { PlanState } from "../plan/plan.js"
import type { Turn } from "./turn.js"
import { emptyTurnEvents } from "./turn-events.js"

export type { LoopListener } from "./registry.js"

export class LoopManager extends LoopFacts {
  /** Starts a loop in `sessionID` (with `plan`: a plan loop); a live loop already there is replaced (and returned). */
  start(
    sessionID: string,
    task: string,
    settings: LoopSettings,
    now: number,
    plan?: PlanState,
  ): { loop: Loop; replaced?: Loop } {
    const previous = this.bySession.get(sessionID)
    if (previous) this.stop(previous, "replaced")
    const loop: Loop = {
      ...newLoop(sessionID, task, settings, now),
      id: this.freeID(sessionID),
      ...(plan ? { plan } : {}),
    }
    this.enter(loop)
    this.changed(loop, "started")
    return previous ? { loop, replaced: previous } : { loop }
  }

  /**
   * Takes back the loops found on disk when OpenCode (re)started, before anything else happens: a
   * decision one was making is made again; with `askFirst` (resumeOnStart "ask") they wait, paused,
   * for /ralph-resume. Returns the loops taken back.
   */
  adoptAll(loops: readonly Loop[], askFirst: boolean): Loop[] {
    const adopted: Loop[] = []
    for (const loop of loops) {
      if (loop.phase === "stopped" || this.bySession.has(loop.sessionID)) continue
      if (loop.phase === "deciding") loop.phase = "running"
      this.enter(loop)
      this.changed(loop, "recovered")
      if (askFirst && loop.phase !== "paused") {
        loop.recoveryPending = true
        this.pause(loop, "OpenCode restarted; /ralph-resume goes on", "recovery")
      }
      adopted.push(loop)
    }
    return adopted
  }

  /**
   * Claims the idle of `sessionID` for a decision. Only a running loop whose turn was seen busy
   * qualifies, so duplicate idles and the idles of the plugin's own calls yield nothing.
   */
  takeIdle(sessionID: string): Loop | undefined {
    const loop = this.bySession.get(sessionID)
    if (loop?.phase !== "running" || !loop.sawBusy) return undefined
    loop.phase = "deciding"
    loop.sawBusy = false
    return loop
  }

  /** Claims a recovered loop for a decision on its session's last turn (as if an idle came). */
  claim(loop: Loop): boolean {
    if (loop.phase !== "running" && loop.phase !== "restarting") return false
    loop.phase = "deciding"
    return true
  }

  /**
   * Marks `turn` as decided and records the policies' new state (and a plan's story marked done)
   * — and a restart, in the same write: a crash after it must not decide the same turn twice.
   */
  decided(loop: Loop, turn: Turn, update: LoopUpdate, decision: Decision): void {
    if (turn.lastAssistantID !== undefined) loop.lastDecidedMessageID = turn.lastAssistantID
    Object.assign(loop, update)
    // A decision that measured no progress (a wait for the same turn) leaves none standing from the turn before.
    if (update.lastProgress === undefined) delete loop.lastProgress
    loop.lastDecision = decision.type
    loop.lastTurn = turn
    if (decision.type === "restart") this.pendRestart(loop, decision)
    this.changed(loop, "decided")
  }

  /** Back to waiting for a turn, without having sent anything. `busy`: a turn is already under way. */
  keepWatching(loop: Loop, busy = false): void {
    if (loop.phase === "stopped") return
    loop.phase = "running"
    loop.sawBusy = busy
  }

  /** A permission or question waits for the user: nothing is sent; a request listed at an idle lost its reply event. */
  waitForUser(loop: Loop): void {
    loop.turnEvents = { ...loop.turnEvents, pending: [] }
    this.keepWatching(loop)
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

  /** Keeps a fresh session an earlier, abandoned restart already created (it is still empty). */
  private pendRestart(loop: Loop, { fresh, note, feedback }: PendingRestart): void {
    const sessionID = loop.restart?.sessionID
    loop.restart = {
      fresh,
      ...(note ? { note } : {}),
      ...(feedback ? { feedback } : {}),
      ...(sessionID ? { sessionID } : {}),
    }
  }

  /**
   * The next prompt is about to go to `sessionID` (the same session, or a fresh one; `retireOld`:
   * the old one is to be archived and deleted). False (nothing changed) when the loop stopped, or
   * another live loop already lives in `sessionID`.
   */
  nextIteration(loop: Loop, sessionID: string, now: number, retireOld = false): boolean {
    if (loop.phase === "stopped") return false
    const occupant = this.bySession.get(sessionID)
    if (occupant && occupant !== loop) return false
    this.nextSession(loop, undefined)
    if (sessionID !== loop.sessionID) {
      const from = loop.sessionID
      loop.lineage = [...loop.lineage, from]
      if (retireOld) loop.retiring = [...loop.retiring, from]
      loop.sessionID = sessionID
      this.moved(loop, from)
    }
    delete loop.restart
    loop.iteration += 1
    loop.retries += 1
    loop.iterationUnsent = true
    this.promptSent(loop, now, "iteration")
    return true
  }

  /** The prompt is going out now: from here on its iteration counts, whatever happens. */
  promptGoingOut(loop: Loop): void {
    delete loop.iterationUnsent
  }

  /** A prompt that repeats the current iteration (a resume, or one a restart of OpenCode lost) is about to be sent. */
  promptSent(loop: Loop, now: number, event = "prompt"): void {
    if (loop.phase === "stopped") return
    loop.phase = "running"
    loop.sawBusy = false
    loop.turnEvents = emptyTurnEvents()
    loop.iterationStartedAt = now
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

  pause(loop: Loop, reason: string, cause: PauseCause): void {
    if (loop.phase === "stopped") return
    loop.phase = "paused"
    loop.detail = reason
    loop.pauseCause = cause
    delete loop.wait
    this.changed(loop, "paused")
  }

  /** A rollback wrote the work tree back while the loop stayed paused (the user did not resume it meanwhile). */
  rolledBack(loop: Loop, detail: string): void {
    if (loop.phase !== "paused") return
    loop.detail = detail
    this.changed(loop, "rolled-back")
  }

  /** The user spoke in a paused or waiting loop's session: the loop watches that turn again. */
  resume(loop: Loop, now: number): boolean {
    if (loop.phase !== "paused" && loop.phase !== "waiting") return false
    delete loop.detail
    delete loop.pauseCause
    delete loop.recoveryPending
    this.promptSent(loop, now, "resumed")
    return true
  }

  /**
   * /ralph-resume: the loop goes on as `resumeByHand` decided — at the end of the command's own turn
   * (`atNextIdle`), or at once by the runner when typed in an earlier session of the loop.
   */
  resumedByHand(loop: Loop, how: ResumeHow, breaker: Breaker, now: number, atNextIdle: boolean): void {
    loop.breaker = breaker
    this.resume(loop, now)
    if (atNextIdle) loop.resumeRequested = how
  }

  stop(loop: Loop, reason: StopReason, detail?: string): void {
    if (loop.phase === "stopped") return
    // Stopped between counting the next iteration and sending its prompt: that iteration never ran.
    if (loop.iterationUnsent) {
      loop.iteration -= 1
      loop.retries -= 1
      delete loop.iterationUnsent
    }
    loop.phase = "stopped"
    loop.stopReason = reason
    if (detail !== undefined) loop.detail = detail
    delete loop.wait
    this.leave(loop)
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
