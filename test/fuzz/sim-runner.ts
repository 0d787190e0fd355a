// A model of src/actions/runner.ts (ActionRunner) for the event-order fuzzer.
//
// The real runner does I/O (the SDK client, git, the state files) and awaits between its steps; the
// user and OpenCode can act in every one of those gaps. Here each `await` of the runner is a
// `yield` of a generator, so the fuzzer decides when every awaited call comes back and can put any
// event, command or other job in between. Everything else — every phase re-check, every manager
// call, the order of the steps — follows runner.ts line by line, and the decisions come from the
// real pure core (`decide`, `exceededBudget`, `blockedUntil`, `afterCooldown`, `readTurn` …).
//
// Mirrored from src/actions/runner.ts after the review and fuzzer fixes (user epoch re-checks,
// stillRestarting, guarded nextIteration/beginRestart, retire guard, wake reschedule, goOn budget
// check, resumeNow) and after the kill points (prompts wait for the state file, the restart's
// session is reused, old sessions to retire are tracked). If
// runner.ts changes its steps or its re-checks, change the same lines here (they keep the real
// method names). Not modelled: `recover`/`reopen` (an OpenCode restart), toasts and logs, prompt
// texts, the checks feature (the fuzzer never configures checks).
import { afterCooldown } from "../../src/loop/breaker.js"
import { blockedUntil } from "../../src/loop/call-window.js"
import { exceededBudget } from "../../src/loop/budgets.js"
import { decide, type Decision } from "../../src/loop/decide.js"
import type { Loop, PendingRestart, Wait } from "../../src/loop/loop.js"
import type { LoopManager } from "../../src/loop/manager.js"
import type { ProgressSample } from "../../src/loop/progress.js"
import type { Turn } from "../../src/loop/turn.js"
import { readSummary, readTurn, sessionUsage, type MessageWithParts } from "../../src/opencode/read-turn.js"

/** A call the runner awaits. The simulator answers it whenever the fuzzer says so. */
export type Call =
  | { kind: "sleep"; ms: number }
  | { kind: "messages"; sessionID: string }
  | { kind: "sample"; sessionID: string }
  | { kind: "verify"; loopID: string }
  | { kind: "summarize"; sessionID: string }
  | { kind: "handoff-facts"; sessionID: string }
  | { kind: "write-summary"; sessionID: string }
  | { kind: "create-session" }
  | { kind: "select-session"; sessionID: string }
  | { kind: "prompt"; sessionID: string; loop: Loop }
  | { kind: "is-idle"; sessionID: string }
  | { kind: "write-transcript"; sessionID: string }
  | { kind: "delete-session"; sessionID: string }
  | { kind: "persisted"; loopID: string }

interface Results {
  sleep: undefined
  messages: MessageWithParts[]
  sample: ProgressSample
  verify: undefined
  summarize: undefined
  "handoff-facts": undefined
  "write-summary": undefined
  "create-session": { id: string }
  "select-session": undefined
  prompt: undefined
  "is-idle": boolean
  "write-transcript": undefined
  "delete-session": undefined
  persisted: undefined
}

export type Job = Generator<Call, void, unknown>

/** An SDK call that failed (a deleted session, …): the runner catches these like the real one. */
export class SimCallError extends Error {
  override readonly name = "SimCallError"
}

/** What the runner model needs from the simulated world. */
export interface RunnerHost {
  readonly now: number
  startJob(label: string, job: Job): void
  note(line: string): void
}

/** `await api.x(...)` becomes `yield* call({kind: "x", ...})`. */
function* call<C extends Call>(c: C): Generator<Call, Results[C["kind"]], unknown> {
  return (yield c) as Results[C["kind"]]
}

const IDLE_WAIT_MS = 10_000

export class SimRunner {
  /** The scheduled wake-ups (runner.ts keeps setTimeout handles; here: when they are due). */
  readonly timers = new Map<Loop, { until: number }>()

  constructor(
    private readonly manager: LoopManager,
    private readonly host: RunnerHost,
  ) {}

  private now(): number {
    return this.host.now
  }

  notify(_notice?: unknown): void {}

  /** The event hook calls this for a claimed idle; like the async original it runs up to its first await at once. */
  onTurnEnded(loop: Loop): Promise<void> {
    this.host.startJob(`turn end of ${loop.id}`, this.turnEnded(loop))
    return Promise.resolve()
  }

  /** runner.ts persisted waits for the state file; the simulated store has nothing pending. */
  persisted(_loop: Loop): Promise<void> {
    return Promise.resolve()
  }

  /** runner.ts reached: crash points exist only with fault injection. */
  reached(_point: string): void {}

  /** runner.ts captureStart reads git HEAD for the handoff; nothing here depends on it. */
  captureStart(_loop: Loop): Promise<void> {
    return Promise.resolve()
  }

  cancelTimer(loop: Loop): void {
    this.timers.delete(loop)
  }

  dispose(): void {
    this.timers.clear()
  }

  /** The timer callback of `schedule`: `this.timers.delete(loop); void this.wake(loop)`. */
  fire(loop: Loop): void {
    this.timers.delete(loop)
    this.host.startJob(`wake of ${loop.id}`, this.wake(loop))
  }

  // runner.ts onTurnEnded
  private *turnEnded(loop: Loop): Job {
    const epoch = loop.busyEpoch
    const userEpoch = loop.userEpoch
    const userMovedOn = () => {
      if (loop.userEpoch === userEpoch) return false
      this.manager.keepWatching(loop, true)
      return true
    }
    try {
      if (loop.settings.settleMs > 0) yield* call({ kind: "sleep", ms: loop.settings.settleMs })
      if (loop.phase !== "deciding") return
      if (loop.busyEpoch !== epoch) return this.manager.keepWatching(loop, true)
      // runner.ts starts the sample before the settle wait and joins it in Promise.all([messages,
      // sample, verify]); modelled one after the other here (a superset of the orders).
      const messages = yield* call({ kind: "messages", sessionID: loop.sessionID })
      const sample = yield* call({ kind: "sample", sessionID: loop.sessionID })
      yield* call({ kind: "verify", loopID: loop.id })
      if (loop.phase !== "deciding" || userMovedOn()) return
      loop.usage[loop.sessionID] = sessionUsage(messages)
      const turn = readTurn(messages)
      const resume = loop.resumeRequested
      delete loop.resumeRequested
      if (resume && turn.lastAssistantID === loop.lastDecidedMessageID) {
        this.host.note(`    runner: ${loop.id} goes on after /ralph-resume (${resume.then})`)
        return yield* this.goOn(loop, resume, "The user resumed the loop.")
      }
      if (turn.lastAssistantID !== loop.lastDecidedMessageID) yield* this.checkIfDue(loop) // no checks configured
      if (loop.phase !== "deciding" || userMovedOn()) return
      const { decision, update } = decide(loop, { turn, sample, now: this.now() })
      this.host.note(`    runner: ${loop.id} decided ${describe(decision)}`)
      if (decision.type !== "ignore") {
        this.manager.decided(loop, turn.lastAssistantID, update, decision)
        loop.lastTurn = turn
      }
      yield* this.perform(loop, decision, turn, userEpoch)
    } catch (error) {
      this.fail(loop, "could not handle the end of a turn", error)
    }
  }

  /** runner.ts resumeNow: /ralph-resume typed in an earlier session of the loop. */
  resumeNow(loop: Loop, how: Pick<Wait, "then" | "fresh">): Promise<void> {
    const self = this
    this.host.startJob(`resume of ${loop.id}`, (function* () {
      try {
        if (!(yield* call({ kind: "is-idle", sessionID: loop.sessionID }))) return
        const messages = yield* call({ kind: "messages", sessionID: loop.sessionID })
        if (messages.length > 0 && readTurn(messages).lastAssistantID === undefined) return
        yield* self.goOn(loop, how, "The user resumed the loop.")
      } catch (error) {
        self.fail(loop, "could not resume the loop", error)
      }
    })())
    return Promise.resolve()
  }

  // runner.ts checkIfDue: with no checks configured it returns at once (no I/O).
  private *checkIfDue(loop: Loop): Generator<Call, undefined, unknown> {
    const checks = (loop.settings as { checks?: unknown[] }).checks ?? []
    if (checks.length > 0) throw new Error("the event-order simulator does not model checks; configure none")
    return undefined
  }

  // runner.ts perform
  private *perform(loop: Loop, decision: Decision, turn: Turn, userEpoch = loop.userEpoch): Job {
    switch (decision.type) {
      case "ignore":
        return this.manager.keepWatching(loop)
      case "wait-for-user":
        loop.turnEvents.pending = []
        return this.manager.keepWatching(loop)
      case "complete":
        this.manager.stop(loop, "completed", decision.detail)
        return
      case "stop":
        this.manager.stop(loop, decision.reason, decision.detail)
        return
      case "report-missing-promise":
        this.manager.keepWatching(loop)
        return
      case "pause":
        this.manager.pause(loop, decision.reason)
        return
      case "wait":
        this.manager.wait(loop, decision.wait, decision.detail)
        return this.schedule(loop, decision.wait.until)
      case "restart":
        return yield* this.iterate(loop, turn, decision, userEpoch)
    }
  }

  // runner.ts iterate
  private *iterate(loop: Loop, turn: Turn, restart: PendingRestart, userEpoch = loop.userEpoch): Job {
    if (!this.manager.beginRestart(loop, restart)) return
    if (loop.settings.strategy === "continue" && !restart.fresh) yield* this.continueInPlace(loop, turn)
    else yield* this.restartFresh(loop, turn, loop.settings.strategy === "recreate", userEpoch)
  }

  // runner.ts stillRestarting
  private stillRestarting(loop: Loop, userEpoch: number): boolean {
    if (loop.phase !== "restarting") return false
    if (loop.userEpoch === userEpoch) return true
    this.manager.keepWatching(loop, true)
    return false
  }

  // runner.ts continueInPlace
  private *continueInPlace(loop: Loop, turn: Turn): Job {
    if (!this.manager.nextIteration(loop, loop.sessionID)) return
    if (!(yield* this.prompt(loop, loop.sessionID, turn))) return
  }

  // runner.ts restartFresh
  private *restartFresh(loop: Loop, turn: Turn, retireOld: boolean, userEpoch: number): Job {
    const oldSessionID = loop.sessionID
    yield* this.summarize(loop, turn)
    if (!this.stillRestarting(loop, userEpoch)) return
    yield* call({ kind: "handoff-facts", sessionID: oldSessionID }) // buildHandoff(…, await this.handoffFacts(…)): git + todos
    yield* call({ kind: "write-summary", sessionID: oldSessionID })
    if (!this.stillRestarting(loop, userEpoch)) return
    const sessionID = yield* this.freshSession(loop)
    if (!this.stillRestarting(loop, userEpoch)) return
    try {
      yield* call({ kind: "select-session", sessionID })
    } catch (error) {
      if (!(error instanceof SimCallError)) throw error // the real one logs and goes on
    }
    if (!this.stillRestarting(loop, userEpoch)) return
    if (!this.manager.nextIteration(loop, sessionID, retireOld)) return this.manager.pause(loop, "another loop took over its new session")
    if (!(yield* this.prompt(loop, sessionID, turn))) return
    if (retireOld) yield* this.retire(loop, oldSessionID)
  }

  // runner.ts freshSession
  private *freshSession(loop: Loop): Generator<Call, string, unknown> {
    const created = loop.restart?.sessionID
    if (created) {
      let empty = false
      try {
        empty = (yield* call({ kind: "messages", sessionID: created })).length === 0
      } catch (error) {
        if (!(error instanceof SimCallError)) throw error
      }
      if (empty) return created
    }
    const session = yield* call({ kind: "create-session" })
    this.manager.sessionCreated(loop, session.id)
    yield* call({ kind: "persisted", loopID: loop.id })
    return session.id
  }

  // runner.ts prompt
  private *prompt(loop: Loop, sessionID: string, _turn: Turn | undefined): Generator<Call, boolean, unknown> {
    const { userEpoch, busyEpoch } = loop
    yield* call({ kind: "persisted", loopID: loop.id })
    if (loop.phase !== "running" || loop.userEpoch !== userEpoch || loop.busyEpoch !== busyEpoch) return false
    this.manager.recordCall(loop, this.now())
    yield* call({ kind: "prompt", sessionID, loop })
    loop.hints = []
    return true
  }

  // runner.ts summarize (its own catch turns every failure into the fallback handoff)
  private *summarize(loop: Loop, turn: Turn): Job {
    const sessionID = loop.sessionID
    const model = turn.model
    const self = this
    function* summarized(): Generator<Call, MessageWithParts[], unknown> {
      self.manager.recordCall(loop, self.now())
      yield* call({ kind: "summarize", sessionID })
      return yield* call({ kind: "messages", sessionID })
    }
    try {
      let messages = turn.compacted || !model ? yield* call({ kind: "messages", sessionID }) : yield* summarized()
      let summary = readSummary(messages)
      if (!summary && turn.compacted && model) summary = readSummary((messages = yield* summarized()))
      loop.usage[sessionID] = sessionUsage(messages)
      if (summary) return
    } catch (error) {
      if (!(error instanceof SimCallError)) throw error
    }
  }

  // runner.ts retire
  private *retire(loop: Loop, sessionID: string): Job {
    try {
      if (!(yield* this.waitUntilIdle(sessionID))) return
      yield* call({ kind: "messages", sessionID })
      yield* call({ kind: "write-transcript", sessionID })
      if (this.manager.get(sessionID)) return
      yield* call({ kind: "delete-session", sessionID })
    } catch (error) {
      if (!(error instanceof SimCallError)) throw error
    } finally {
      this.manager.retired(loop, sessionID)
    }
  }

  // runner.ts waitUntilIdle
  private *waitUntilIdle(sessionID: string): Generator<Call, boolean, unknown> {
    const deadline = this.now() + IDLE_WAIT_MS
    while (!(yield* call({ kind: "is-idle", sessionID }))) {
      if (this.now() >= deadline) return false
      yield* call({ kind: "sleep", ms: 200 })
    }
    return true
  }

  // runner.ts schedule
  private schedule(loop: Loop, until: number): void {
    this.cancelTimer(loop)
    this.timers.set(loop, { until })
  }

  // runner.ts wake
  private *wake(loop: Loop): Job {
    const wait = loop.wait
    if (loop.phase !== "waiting" || !wait) return
    try {
      const now = this.now()
      if (wait.reason === "breaker") loop.breaker = afterCooldown(loop.breaker, loop.settings, now)
      const breach = exceededBudget(loop, now)
      if (breach && wait.then === "next") {
        this.manager.stop(loop, breach.reason, breach.detail)
        return
      }
      const idle = yield* call({ kind: "is-idle", sessionID: loop.sessionID })
      if (loop.phase !== "waiting") return
      if (!idle) return this.schedule(loop, this.now() + 2_000)
      const calls = wait.then === "resume" || (loop.settings.strategy === "continue" && !wait.fresh) ? 1 : 2
      const blocked = blockedUntil(loop.calls, loop.settings, now, calls)
      if (blocked !== undefined) {
        this.manager.wait(loop, { ...wait, reason: "call-limit", until: blocked }, "calls per window reached")
        return this.schedule(loop, blocked)
      }
      yield* this.goOn(loop, wait)
    } catch (error) {
      this.fail(loop, "could not continue the loop after waiting", error)
    }
  }

  // runner.ts goOn
  private *goOn(loop: Loop, how: Pick<Wait, "then" | "fresh">, _why?: string): Job {
    const turn = loop.lastTurn ?? { texts: [] }
    if (loop.phase === "stopped" || loop.phase === "paused") return
    const breach = how.then === "next" ? exceededBudget(loop, this.now()) : undefined
    if (breach) {
      this.manager.stop(loop, breach.reason, breach.detail)
      return
    }
    if (how.then === "resume") {
      this.manager.promptSent(loop)
      yield* this.prompt(loop, loop.sessionID, turn)
      return
    }
    yield* this.iterate(loop, turn, { fresh: how.fresh ?? false })
  }

  // runner.ts fail. Only a failed (simulated) SDK call is expected here; anything else thrown is a
  // bug in the core, so it fails the fuzz run instead of quietly pausing the loop.
  private fail(loop: Loop, what: string, error: unknown): void {
    if (!(error instanceof SimCallError)) throw error
    this.host.note(`    runner: ${what}: ${error.message}`)
    if (loop.phase === "stopped") return
    this.manager.pause(loop, `${what} (${error.message})`)
  }
}

function describe(decision: Decision): string {
  switch (decision.type) {
    case "ignore":
    case "wait-for-user":
      return `${decision.type} (${decision.reason})`
    case "pause":
      return `pause (${decision.reason})`
    case "stop":
      return `stop ${decision.reason}`
    case "wait":
      return `wait ${decision.wait.reason} → ${decision.wait.then}${decision.wait.fresh ? " fresh" : ""}`
    case "restart":
      return `restart${decision.fresh ? " fresh" : ""}`
    default:
      return decision.type
  }
}
