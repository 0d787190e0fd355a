// Which loop lives in which session: the live loops of one plugin instance, by the session they
// live in now, lived in before, or are about to move to. The base of LoopManager (the one writer
// of loop state); it performs no I/O. Every question the event path asks here is one lookup by
// session id: the indexes change where the loops move, never by scanning the loops.
import type { Loop } from "./loop.js"

export type LoopListener = (loop: Loop, event: string) => void

export class LoopRegistry {
  protected readonly bySession = new Map<string, Loop>()
  /** The live loops by id (the name of their state file). */
  private readonly byID = new Map<string, Loop>()
  /** The sessions live loops lived in before (their lineage): the loops that left each, the last to leave it last. */
  private readonly byEarlierSession = new Map<string, Loop[]>()
  /** The fresh session a live loop's restart created, before the loop moves there. */
  private readonly byNextSession = new Map<string, Loop>()

  /** `onChange` hears every change worth keeping (the store persists it). */
  constructor(private readonly onChange: LoopListener = () => undefined) {}

  /**
   * A loop's last word is its stop: work that finishes after it (a git call, a late turn) changes
   * nothing on disk. Only a retirement that ends later is still written — the state file must not
   * list an old session that is gone — unless a new loop took over the same state file since.
   */
  protected changed(loop: Loop, event: string): void {
    if (loop.phase === "stopped" && !event.startsWith("stopped:") && !(event === "retired" && this.ownsItsFile(loop)))
      return
    this.onChange(loop, event)
  }

  private ownsItsFile(stopped: Loop): boolean {
    return !this.byID.has(stopped.id)
  }

  /** The live loop living in `sessionID` now, if any. */
  get(sessionID: string): Loop | undefined {
    return this.bySession.get(sessionID)
  }

  /** The live loop that lives in `sessionID` now or lived there before (of two that did, the one there last). */
  find(sessionID: string): Loop | undefined {
    return this.bySession.get(sessionID) ?? this.byEarlierSession.get(sessionID)?.at(-1)
  }

  /**
   * A live loop lives in `sessionID`, lived there, or is about to move there (its restart created it): the loop owns
   * its turns.
   */
  owns(sessionID: string): boolean {
    return this.find(sessionID) !== undefined || this.byNextSession.has(sessionID)
  }

  /**
   * The live loops that keep a session folder named `name` (under their summaryPath): the loop whose
   * id it is, and those that lived in that session before. Two lookups, for the tool guard.
   */
  withSessionFolder(name: string): readonly Loop[] {
    const own = this.byID.get(name)
    const earlier = this.byEarlierSession.get(name) ?? []
    return own ? [own, ...earlier] : earlier
  }

  all(): Loop[] {
    return [...this.bySession.values()]
  }

  get size(): number {
    return this.bySession.size
  }

  /**
   * A loop's id is the session it started in — unless an earlier loop that started there lives on
   * in a later session: the two must not share a state file.
   */
  protected freeID(sessionID: string): string {
    let id = sessionID
    for (let n = 2; this.byID.has(id); n += 1) id = `${sessionID}-${n}`
    return id
  }

  /**
   * `loop` lives in its session from now on (started, or taken back from disk with its earlier sessions and restart).
   */
  protected enter(loop: Loop): void {
    this.bySession.set(loop.sessionID, loop)
    this.byID.set(loop.id, loop)
    for (const sessionID of loop.lineage) this.leftSession(loop, sessionID)
    if (loop.restart?.sessionID !== undefined) this.byNextSession.set(loop.restart.sessionID, loop)
  }

  /** `loop` moved from `from` to the session it lives in now. */
  protected moved(loop: Loop, from: string): void {
    if (this.bySession.get(from) === loop) this.bySession.delete(from)
    this.leftSession(loop, from)
    this.bySession.set(loop.sessionID, loop)
  }

  /**
   * The restart of a live `loop` created `sessionID`, or (undefined) is over: the loop moved there or sends in its own
   * session.
   */
  protected nextSession(loop: Loop, sessionID: string | undefined): void {
    const before = loop.restart?.sessionID
    if (before !== undefined && this.byNextSession.get(before) === loop) this.byNextSession.delete(before)
    if (sessionID !== undefined && this.bySession.get(loop.sessionID) === loop) this.byNextSession.set(sessionID, loop)
  }

  /** `loop` ended: no session leads to it any more. */
  protected leave(loop: Loop): void {
    if (this.bySession.get(loop.sessionID) === loop) this.bySession.delete(loop.sessionID)
    if (this.byID.get(loop.id) === loop) this.byID.delete(loop.id)
    for (const sessionID of loop.lineage) {
      const loops = this.byEarlierSession.get(sessionID)?.filter((other) => other !== loop)
      if (loops?.length) this.byEarlierSession.set(sessionID, loops)
      else this.byEarlierSession.delete(sessionID)
    }
    this.nextSession(loop, undefined)
  }

  private leftSession(loop: Loop, sessionID: string): void {
    const loops = (this.byEarlierSession.get(sessionID) ?? []).filter((other) => other !== loop)
    this.byEarlierSession.set(sessionID, [...loops, loop])
  }
}
