// What the loop learns along the way — OpenCode's events, the user's messages and hints, usage,
// the last turn, the breaker after a cooldown — recorded by the one writer of loop state
// (LoopManager extends this). Phase changes are in manager.ts.
import { NO_REVIEWS } from "./review-state.js"
import { REFUSED_ACCEPTS_KEPT, type Accepted, type RefusedAccept } from "../evidence/accepted.js"
import type { Breaker } from "./breaker.js"
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"
import { recordCall } from "./call-window.js"
import type { StartCapture } from "./changed-files.js"
import type { Loop, Usage } from "./loop.js"
import type { ProgressSample } from "./progress.js"
import { LoopRegistry } from "./registry.js"
import type { Turn } from "./turn.js"
import { recordTurnEvent, type TurnEvent } from "./turn-events.js"

export class LoopFacts extends LoopRegistry {
  onBusy(sessionID: string, retry = false): void {
    const loop = this.bySession.get(sessionID)
    if (!loop) return
    loop.busyEpoch += 1
    if (loop.phase === "running") loop.sawBusy = true
    if (retry) loop.turnEvents = recordTurnEvent(loop.turnEvents, { kind: "retried" })
  }

  /** Records what OpenCode reports about the turn under way in `sessionID`. */
  onTurnEvent(sessionID: string, event: TurnEvent): Loop | undefined {
    const loop = this.bySession.get(sessionID)
    if (!loop || loop.phase === "stopped") return undefined
    loop.turnEvents = recordTurnEvent(loop.turnEvents, event)
    return loop
  }

  /** The user wrote in the loop's session (not a control command): their turn is the one watched now. */
  onUserMessage(loop: Loop): void {
    loop.userEpoch += 1
    delete loop.resumeRequested
  }

  /** The loop's first message got the promise instruction. */
  instructionGiven(loop: Loop): void {
    loop.needsInstruction = false
    this.changed(loop, "instructed")
  }

  addHint(loop: Loop, hint: string): void {
    loop.hints = [...loop.hints, hint]
    this.changed(loop, "hint")
  }

  /** The user accepted what refused a claim (ralph-loop accept, the TUI): the next claims are judged with it. */
  accept(loop: Loop, accepted: readonly Accepted[]): void {
    loop.accepted = [...(loop.accepted ?? []), ...accepted]
    this.changed(loop, "accepted")
  }

  /** An accept a model's shell ran: refused, and kept for the user to see. */
  acceptRefused(loop: Loop, refused: RefusedAccept): void {
    loop.refusedAccepts = [...(loop.refusedAccepts ?? []), refused].slice(-REFUSED_ACCEPTS_KEPT)
    this.changed(loop, "accept-refused")
  }

  /** OpenCode took a prompt: the hints it carried are used up. */
  promptDelivered(loop: Loop): void {
    if (loop.hints.length === 0) return
    loop.hints = []
    this.changed(loop, "hints-used")
  }

  /**
   * What the project looked like when the loop began: its commit and the files the user had changed
   * already (for "files changed since the loop began"), and the progress baseline, so the first
   * turn is measured like any other.
   */
  startCaptured(loop: Loop, start: StartCapture, sample: ProgressSample): void {
    const known = loop.startTree !== undefined || loop.startFiles !== undefined || loop.startUnknown !== undefined
    if (start !== undefined && !known) {
      if ("unknown" in start) loop.startUnknown = start.unknown
      else {
        if (start.head !== undefined) loop.startHead ??= start.head
        loop.startTree = start.tree
      }
    }
    if (loop.progress.workTree === undefined)
      loop.progress = {
        ...loop.progress,
        workTree: sample.workTree,
        todosCompleted: sample.todosCompleted,
        todosSession: sample.sessionID,
      }
    this.changed(loop, "start-captured")
  }

  /** The checks of a loop started with its criteria, as they ran before its first prompt. */
  initialChecksMeasured(loop: Loop, snapshot: DiagnosticSnapshot): void {
    if (loop.phase === "stopped" || loop.initialChecks) return
    loop.initialChecks = snapshot
    this.changed(loop, "initial-checks")
  }

  /** What a session of the loop has cost so far, from OpenCode's message accounting. */
  /** A ralph_done call's claim was judged on this work tree (undefined: the turn's end must run the checks itself). */
  claimJudged(loop: Loop, judged: Loop["judgedClaim"]): void {
    if (judged) loop.judgedClaim = judged
    else delete loop.judgedClaim
  }

  /** A review of the loop's claim opened its session, or (undefined) the session is gone or kept. */
  reviewSession(loop: Loop, sessionID: string | undefined): void {
    const { session: _open, ...review } = loop.review ?? NO_REVIEWS
    if (sessionID !== undefined) this.reviewSessions.add(sessionID)
    loop.review = sessionID === undefined ? review : { ...review, session: sessionID }
    this.changed(loop, "review")
  }

  /**
   * A session a loop opened for a review: no loop, no continuation, no activation ever acts in it.
   * Remembered for the instance's life (a handful of ids): its last idle may come after its review.
   * Asked for every observed event: a lookup, never a scan of the loops.
   */
  isReviewSession(sessionID: string): boolean {
    return this.reviewSessions.has(sessionID)
  }

  /** Every session a loop opened for a review, or had open when it was taken back from disk (`enter`). */
  private readonly reviewSessions = new Set<string>()

  protected override enter(loop: Loop): void {
    super.enter(loop)
    if (loop.review?.session !== undefined) this.reviewSessions.add(loop.review.session)
  }

  usageMeasured(loop: Loop, sessionID: string, usage: Usage): void {
    loop.usage = { ...loop.usage, [sessionID]: usage }
    this.changed(loop, "usage")
  }

  /** A plugin call that reaches the model (prompt or summary) counts toward maxCallsPerHour. */
  recordCall(loop: Loop, now: number): void {
    loop.calls = recordCall(loop.calls, loop.settings, now)
  }

  /** /ralph-resume asked to go on at the next idle: taken once. */
  takeResumeRequest(loop: Loop): Loop["resumeRequested"] {
    const how = loop.resumeRequested
    delete loop.resumeRequested
    return how
  }

  /** The last turn, read again after a restart of OpenCode: its model and text carry over. */
  lastTurnRead(loop: Loop, turn: Turn): void {
    loop.lastTurn = turn
    this.changed(loop, "last-turn")
  }

  /** A decision cut off by a restart of OpenCode is made again. */
  forgetDecision(loop: Loop): void {
    delete loop.lastDecidedMessageID
    this.changed(loop, "undecided")
  }

  /** The restart created its fresh session (or found the one it created before a crash). */
  sessionCreated(loop: Loop, sessionID: string | undefined): void {
    if (!loop.restart || sessionID === undefined) return
    this.nextSession(loop, sessionID)
    loop.restart = { ...loop.restart, sessionID }
    this.changed(loop, "session-created")
  }

  /** An earlier session was archived and deleted (or is kept for good). */
  retired(loop: Loop, sessionID: string): void {
    loop.retiring = loop.retiring.filter((id) => id !== sessionID)
    this.changed(loop, "retired")
  }

  /** A wait's timer fired: the breaker as its cooldown left it. */
  cooledDown(loop: Loop, breaker: Breaker): void {
    if (breaker === loop.breaker) return
    loop.breaker = breaker
    this.changed(loop, "cooled-down")
  }
}
