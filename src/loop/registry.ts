// Which loop lives in which session: the live loops of one plugin instance, by the session they
// live in now. The base of LoopManager (the one writer of loop state); it performs no I/O.
import type { Loop } from "./loop.js"

export type LoopListener = (loop: Loop, event: string) => void

export class LoopRegistry {
  protected readonly bySession = new Map<string, Loop>()

  /** `onChange` hears every change worth keeping (the store persists it). */
  constructor(private readonly onChange: LoopListener = () => undefined) {}

  /**
   * A loop's last word is its stop: work that finishes after it (a git call, a late turn) changes
   * nothing on disk. Only a retirement that ends later is still written — the state file must not
   * list an old session that is gone — unless a new loop took over the same state file since.
   */
  protected changed(loop: Loop, event: string): void {
    if (loop.phase === "stopped" && !event.startsWith("stopped:") && !(event === "retired" && this.ownsItsFile(loop))) return
    this.onChange(loop, event)
  }

  private ownsItsFile(stopped: Loop): boolean {
    return !this.all().some((loop) => loop.id === stopped.id)
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

  /**
   * A loop's id is the session it started in — unless an earlier loop that started there lives on
   * in a later session: the two must not share a state file.
   */
  protected freeID(sessionID: string): string {
    const taken = new Set(this.all().map((loop) => loop.id))
    let id = sessionID
    for (let n = 2; taken.has(id); n += 1) id = `${sessionID}-${n}`
    return id
  }
}
