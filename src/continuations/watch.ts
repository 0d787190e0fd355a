// What the plugin knows about each session without a loop, for the continuations outside /ralph
// (todo-continuation, auto-continue): its turns (busy, idle, errors, pending requests), what the
// user did, and each continuation's count. The one writer of that state — every change is a method
// named for what happened; no I/O. Kept in memory only: a restart of OpenCode starts it over.
import type { IdleVia } from "../host/events.js"
import { emptyTurnEvents, recordTurnEvent, type TurnEvent, type TurnEvents } from "../loop/turn-events.js"
import { freshRun, type AutoRun } from "./auto-rule.js"
import { freshStreak, type TodoStreak } from "./todo-rule.js"

export interface Watched {
  readonly sessionID: string
  /** From session.created or a lookup: null for a top-level session, undefined while unknown. */
  parentID?: string | null
  /** A busy was seen since the last idle taken: the next idle ends a real turn. */
  sawBusy: boolean
  busyEpoch: number
  /** Messages the user typed here (not commands, not the plugin's own). */
  userEpoch: number
  /** Idles with no busy before them: OpenCode publishes one when an idle session is aborted (Esc). */
  strayIdles: number
  /** How the turn end just taken was announced: its other announcement is no stray idle. */
  echo?: IdleVia
  turnEvents: TurnEvents
  /** The last reply a continuation was decided on (a second look at it is a duplicate). */
  lastDecidedID?: string
  /** /cancel-ralph here: nothing is continued until the user writes. */
  cancelled: boolean
  todo: TodoStreak
  auto: AutoRun
  /** The work tree when the user last wrote, or after the last turn checked (auto-continue). */
  baseline?: string
  /** A todo countdown under way, until then (for /ralph-status). */
  countdownUntil?: number
}

/** The moment a continuation was decided on: if any of it changes, it is not sent. */
export type Moment = Pick<Watched, "busyEpoch" | "userEpoch" | "strayIdles">

export class ContinuationWatch {
  private readonly sessions = new Map<string, Watched>()

  get(sessionID: string): Watched | undefined {
    return this.sessions.get(sessionID)
  }

  private at(sessionID: string): Watched {
    let w = this.sessions.get(sessionID)
    if (!w) {
      // Every field present from the start, and cleared by `= undefined` (never `delete`): the object
      // keeps one shape, so the event path's reads of it stay fast.
      w = {
        sessionID,
        parentID: undefined,
        sawBusy: false,
        busyEpoch: 0,
        userEpoch: 0,
        strayIdles: 0,
        echo: undefined,
        turnEvents: emptyTurnEvents(),
        lastDecidedID: undefined,
        cancelled: false,
        todo: freshStreak(),
        auto: freshRun(),
        baseline: undefined,
        countdownUntil: undefined,
      }
      this.sessions.set(sessionID, w)
    }
    return w
  }

  sessionCreated(sessionID: string, parentID: string | undefined): void {
    this.at(sessionID).parentID = parentID ?? null
  }

  sessionDeleted(sessionID: string): void {
    this.sessions.delete(sessionID)
  }

  /** A lookup said whose child the session is (null: none). */
  parentKnown(sessionID: string, parentID: string | undefined): void {
    const w = this.sessions.get(sessionID)
    if (w) w.parentID = parentID ?? null
  }

  onBusy(sessionID: string): void {
    const w = this.at(sessionID)
    // A new turn: the last one's errors are behind it (a request still waiting is not). Nothing to
    // forget (the common case): the record is kept, not copied.
    const last = w.turnEvents
    if (!w.sawBusy && (last.errors.length > 0 || last.retried || last.compacted))
      w.turnEvents = { ...emptyTurnEvents(), pending: last.pending }
    w.sawBusy = true
    w.echo = undefined
    w.busyEpoch += 1
    w.countdownUntil = undefined
  }

  onTurnEvent(sessionID: string, event: TurnEvent): void {
    const w = this.at(sessionID)
    w.turnEvents = recordTurnEvent(w.turnEvents, event)
  }

  /** True for the idle that ends a turn seen busy; a stray idle (an abort of an idle session) is counted. */
  takeIdle(sessionID: string, via: IdleVia): boolean {
    const w = this.at(sessionID)
    if (!w.sawBusy) {
      if (w.echo !== undefined && w.echo !== via) {
        w.echo = undefined
        return false
      }
      w.strayIdles += 1
      w.countdownUntil = undefined
      return false
    }
    w.sawBusy = false
    w.echo = via
    return true
  }

  /** The user typed a message here: their turn counts from now, every count starts over. */
  onUserMessage(sessionID: string): void {
    const w = this.at(sessionID)
    w.userEpoch += 1
    w.cancelled = false
    w.todo = freshStreak()
    w.auto = freshRun()
    w.countdownUntil = undefined
  }

  /** /cancel-ralph in a session without a loop. True when a continuation was under way or had been sent. */
  cancel(sessionID: string): boolean {
    const w = this.at(sessionID)
    const active = w.countdownUntil !== undefined || w.todo.streak > 0 || w.auto.count > 0
    w.cancelled = true
    w.countdownUntil = undefined
    return active
  }

  moment(sessionID: string): Moment {
    const { busyEpoch, userEpoch, strayIdles } = this.at(sessionID)
    return { busyEpoch, userEpoch, strayIdles }
  }

  /**
   * Nothing happened since `moment` that stops a continuation: no busy, no typing, no Esc, no /cancel-ralph, no request
   * waiting.
   */
  unchanged(sessionID: string, moment: Moment): boolean {
    const w = this.sessions.get(sessionID)
    return (
      w !== undefined &&
      !w.cancelled &&
      w.turnEvents.pending.length === 0 &&
      w.busyEpoch === moment.busyEpoch &&
      w.userEpoch === moment.userEpoch &&
      w.strayIdles === moment.strayIdles
    )
  }

  /** Marks the reply as looked at; false when it already was. */
  decide(sessionID: string, assistantID: string | undefined): boolean {
    const w = this.at(sessionID)
    if (assistantID === undefined || w.lastDecidedID === assistantID) return false
    w.lastDecidedID = assistantID
    return true
  }

  countdownStarted(sessionID: string, until: number): void {
    this.at(sessionID).countdownUntil = until
  }

  countdownEnded(sessionID: string): void {
    const w = this.sessions.get(sessionID)
    if (w) w.countdownUntil = undefined
  }

  todoStepped(sessionID: string, next: TodoStreak): void {
    this.at(sessionID).todo = next
  }

  autoStepped(sessionID: string, next: AutoRun): void {
    this.at(sessionID).auto = next
  }

  /** The work tree to compare the next turn with; a baseline taken for an older message is dropped. */
  baselineTaken(sessionID: string, tree: string | undefined, userEpoch?: number): void {
    const w = this.at(sessionID)
    if (userEpoch !== undefined && userEpoch !== w.userEpoch) return
    if (tree === undefined) w.baseline = undefined
    else w.baseline = tree
  }
}
