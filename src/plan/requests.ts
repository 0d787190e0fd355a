// /ralph-plan requests waiting for their turn to end: which session asked for a plan, where it is
// to be written, and how many times the model was asked. Not a loop: nothing is persisted (after a
// restart of OpenCode the user runs /ralph-plan again). Performs no I/O.
export interface PlanRequest {
  readonly sessionID: string
  /** The plan file, relative to the project. */
  readonly path: string
  /** The file's text when the plan was asked for (undefined: there was none): unchanged means not written. */
  readonly before: string | undefined
  /** 1 after /ralph-plan, 2 after the one more ask with the problems. */
  asks: number
  /** A busy status was seen since the last ask: the next idle ends the model's turn. */
  sawBusy: boolean
}

export class PlanRequests {
  private readonly bySession = new Map<string, PlanRequest>()

  /** /ralph-plan in `sessionID` (an earlier request there is replaced). */
  ask(sessionID: string, path: string, before: string | undefined): PlanRequest {
    const request: PlanRequest = { sessionID, path, before, asks: 1, sawBusy: false }
    this.bySession.set(sessionID, request)
    return request
  }

  has(sessionID: string): boolean {
    return this.bySession.has(sessionID)
  }

  onBusy(sessionID: string): void {
    const request = this.bySession.get(sessionID)
    if (request) request.sawBusy = true
  }

  /** The idle that ends the model's turn for a request (only after a busy; duplicates claim nothing). */
  takeIdle(sessionID: string): PlanRequest | undefined {
    const request = this.bySession.get(sessionID)
    if (!request?.sawBusy) return undefined
    request.sawBusy = false
    return request
  }

  /** The model is asked once more, with the problems. */
  askedAgain(request: PlanRequest): void {
    request.asks += 1
    request.sawBusy = false
  }

  /** The plan is valid, or the request gave up (or its session was deleted). */
  finished(sessionID: string): void {
    this.bySession.delete(sessionID)
  }
}
