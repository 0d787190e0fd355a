// What `ralph-loop run` knows while it follows its loop: what the journal said so far, what it asked
// of the plugin, and what happened around it (the server gone, the /ralph command answered).
import type { Loop } from "../../loop/loop.js"
import type { JournalEntry } from "../../store/loop-schema.js"
import type { FollowMemory } from "./journal-events.js"

export interface FollowState {
  /** A loop taken back with --resume (else the run's /ralph started it). */
  readonly resumed: boolean
  memory: FollowMemory
  started: boolean
  /** A new loop's every line follows the runner's /ralph; a resumed one's, once it sent its resume. */
  requested: boolean
  /** A server the runner started takes the loop back at its start: its "recovered" line says it did. */
  recovered: boolean
  readonly recoveryDeadline: number
  resumeWanted: boolean
  rollbackUnderWay: boolean
  /** The first turn ended with no loop started: one more look at the journal before saying so. */
  lookedAgain: boolean
  /** When the run's signal was first seen (ms), once it came. */
  signalAt: number | undefined
  interruptAsked: boolean
  interruptDeadline: number | undefined
  /** The loop's state as of the last line read. */
  loop: Loop | undefined
  /** When the last line read was written (ms). */
  lastAt: number
  /** How the server ended, once it did. */
  gone: string | undefined
  /** /ralph's failure, once it answered with one. */
  commandError: string | undefined
  commandDone: boolean
}

export function followState(
  resumed: boolean,
  memory: FollowMemory,
  hostStarted: boolean,
  recoveryDeadline: number,
  commandDone: boolean,
): FollowState {
  return {
    resumed,
    memory,
    started: resumed,
    requested: !resumed,
    recovered: !hostStarted,
    recoveryDeadline,
    resumeWanted: false,
    rollbackUnderWay: false,
    lookedAgain: false,
    signalAt: undefined,
    interruptAsked: false,
    interruptDeadline: undefined,
    loop: undefined,
    lastAt: 0,
    gone: undefined,
    commandError: undefined,
    commandDone,
  }
}

/** What a journal line says of the loop's course: it started, it was taken back, a rollback began or ended. */
export function noteEntry(state: FollowState, entry: JournalEntry): void {
  if (entry.event === "started" || entry.event === "recovered") state.started = true
  if (entry.event === "recovered") state.recovered = true
  if (entry.event === "paused") state.rollbackUnderWay = entry.loop.pauseCause === "rollback"
  else if (entry.event === "rolled-back" || entry.event === "resumed" || entry.event.startsWith("stopped")) {
    state.rollbackUnderWay = false
  }
}
