// ActionRunner: gathers the facts of an ended turn, asks the pure core what to do, and does it with
// the SDK client OpenCode gave the plugin. Every step that awaits re-checks the loop afterwards:
// the user may have cancelled, resumed or typed meanwhile.
import { relative } from "node:path"
import { afterCooldown } from "../loop/breaker.js"
import { blockedUntil } from "../loop/call-window.js"
import { exceededBudget } from "../loop/budgets.js"
import { claimsCompletion, decide, type Decision } from "../loop/decide.js"
import { snapshotOf, type CheckResult, type DiagnosticSnapshot } from "../loop/diagnostics.js"
import { maxIterations, ownFolders, type Loop, type PendingRestart, type Wait } from "../loop/loop.js"
import { buildHandoff, FALLBACK_REPLY_CHARS, type HandoffFacts } from "../loop/handoff.js"
import { recurringFailures, unmetCriteria } from "../loop/criteria.js"
import { gotchasFor, gotchaText } from "../loop/gotchas.js"
import type { LoopManager } from "../loop/manager.js"
import type { ProgressSample } from "../loop/progress.js"
import { continuePrompt, freshSessionPrompt, loopRules, resumePrompt, sessionTitle } from "../loop/prompts.js"
import type { Turn } from "../loop/turn.js"
import type { OpencodeApi } from "../opencode/api.js"
import type { CrashPoint, Faults } from "../opencode/faults.js"
import { readSummary, readTurn, sessionUsage, type MessageWithParts } from "../opencode/read-turn.js"
import type { LoopStore } from "../store/loop-store.js"
import { readSummaryFile, writeSummary, writeTranscript } from "../store/session-files.js"
import * as notice from "./notices.js"
import type { Notice } from "./notices.js"
import { runCheck } from "./checks.js"
import { iterationTitle } from "./notices.js"
import { filesChangedSince, headCommit, repositoryPrefix, sampleWorkTree } from "./work-tree.js"

export interface RunnerOptions {
  directory: string
  store: LoopStore
  now?: () => number
  /** How long to wait for an old session to go idle before deleting it. */
  idleWaitMs?: number
  /** Fault injection (e2e tests only): where to kill OpenCode. */
  faults?: Faults | undefined
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class ActionRunner {
  private readonly now: () => number
  private readonly idleWaitMs: number
  private readonly timers = new Map<Loop, ReturnType<typeof setTimeout>>()
  /** The instance was disposed (OpenCode reloads it): work under way must not reach OpenCode. */
  private disposed = false
  /** The project's place in its git repository (undefined: not a repository), asked once. */
  private prefix?: Promise<string | undefined>

  constructor(
    private readonly api: OpencodeApi,
    private readonly manager: LoopManager,
    private readonly options: RunnerOptions,
  ) {
    this.now = options.now ?? Date.now
    this.idleWaitMs = options.idleWaitMs ?? 10_000
  }

  notify(n: Notice | undefined): void {
    if (n) this.api.toast(n.variant, n.title, n.message, n.duration)
  }

  /** A named point of the loop's work, where the e2e tests can kill OpenCode. */
  reached(point: CrashPoint): void {
    this.options.faults?.point(point)
  }

  /** Resolves once the loop's state as it is now has reached disk (or failed to; that is logged). */
  persisted(loop: Loop): Promise<void> {
    return this.options.store.settled(loop.id)
  }

  /** A turn of `loop` ended (its idle was claimed): settle, read it, decide, act. Never throws. */
  async onTurnEnded(loop: Loop): Promise<void> {
    this.reached("turn.ended")
    const epoch = loop.busyEpoch
    const userEpoch = loop.userEpoch
    /** The user wrote meanwhile: their turn runs now, and its end will be decided instead. */
    const userMovedOn = () => {
      if (loop.userEpoch === userEpoch) return false
      this.manager.keepWatching(loop, true)
      return true
    }
    // The work-tree sample (a git call) runs during the settle wait: the turn has ended.
    const sampled = this.sample(loop).catch((error: unknown) => error as Error)
    try {
      if (loop.settings.settleMs > 0) await sleep(loop.settings.settleMs)
      if (loop.phase !== "deciding") return
      // The session started working again while we waited (the user typed, OpenCode continued).
      if (loop.busyEpoch !== epoch) return this.manager.keepWatching(loop, true)
      // The facts of the turn, gathered side by side: they do not depend on each other.
      const [messages, sampleOrError, damaged] = await Promise.all([
        this.api.messages(loop.sessionID),
        sampled,
        this.options.store.verify(loop, this.now()),
      ])
      if (sampleOrError instanceof Error) throw sampleOrError
      const sample = sampleOrError
      if (loop.phase !== "deciding" || userMovedOn()) return
      if (damaged) {
        this.api.log("warn", `state file ${damaged.file} ${damaged.message}`, { loop: loop.id })
        this.notify({ variant: "warning", title: "Ralph · state file restored", message: `${relative(this.options.directory, damaged.file)} ${damaged.message}.` })
      }
      loop.usage[loop.sessionID] = sessionUsage(messages)
      const turn = readTurn(messages)
      const resume = loop.resumeRequested
      delete loop.resumeRequested
      // /ralph-resume: its own turn ended and the loop's last turn was already decided — go on now.
      if (resume && turn.lastAssistantID === loop.lastDecidedMessageID) return await this.goOn(loop, resume, "The user resumed the loop. Continue the task from where you stopped.")
      // Checks only for a turn not decided yet (a control command's turn re-reads the last one).
      const snapshot = turn.lastAssistantID === loop.lastDecidedMessageID ? undefined : await this.checkIfDue(loop, turn)
      if (loop.phase !== "deciding" || userMovedOn()) return
      const breakerBefore = loop.breaker.state
      const { decision, update } = decide(loop, { turn, sample, now: this.now(), snapshot })
      this.api.log("debug", `idle of ${loop.sessionID}: ${decision.type}`, { loop: loop.id, iteration: loop.iteration, decision })
      if (decision.type !== "ignore") {
        this.manager.decided(loop, turn.lastAssistantID, update, decision)
        loop.lastTurn = turn
        this.notify(notice.breakerChanged(breakerBefore, loop.breaker.state, loop.breaker.reason))
        this.reached("turn.decided")
      }
      await this.perform(loop, decision, turn, userEpoch)
    } catch (error) {
      this.fail(loop, "could not handle the end of a turn", error)
    }
  }

  /**
   * A loop recovered after OpenCode restarted (or was killed). What its session holds says how far
   * it had come: a restart cut off goes on from its last step (no second decision, no second
   * summary, no second session); a prompt that never arrived is sent again; a finished turn is
   * decided as if its idle had just come; a turn cut off resumes the same iteration.
   */
  async recover(loop: Loop): Promise<void> {
    try {
      if (loop.retiring.length > 0) void this.retireAll(loop)
      if (loop.phase === "paused") return
      if (loop.phase === "waiting" && loop.wait) return this.schedule(loop, loop.wait.until)
      const idle = await this.api.isIdle(loop.sessionID)
      const messages = idle ? await this.api.messages(loop.sessionID) : []
      // Cancelled, paused or already claimed by an idle while we looked: nothing to do here.
      if (loop.phase !== "running" && loop.phase !== "restarting") return
      if (!idle) return this.manager.keepWatching(loop, true)
      const turn = readTurn(messages)
      const decided = turn.lastAssistantID !== undefined && turn.lastAssistantID === loop.lastDecidedMessageID
      if (decided && loop.restart) {
        loop.lastTurn = turn
        loop.restart.sessionID ??= await this.createdBeforeCrash(loop)
        return await this.iterate(loop, turn, loop.restart)
      }
      // The next iteration was counted, but its prompt is not in the session.
      if (messages.length === 0 || (decided && loop.lastDecision === "restart")) return await this.reopen(loop, messages.length === 0)
      if (turn.lastAssistantID !== undefined && !turn.interrupted && turn.error?.name !== "MessageAbortedError") {
        // Decided before the restart but not acted on: decide again.
        if (decided) delete loop.lastDecidedMessageID
        if (this.manager.claim(loop)) return await this.onTurnEnded(loop)
        return
      }
      loop.lastTurn = turn
      await this.goOn(loop, { then: "resume" }, "OpenCode restarted while you were working, and your last turn was cut off. Continue the task from where you stopped.")
    } catch (error) {
      this.fail(loop, "could not resume the loop after OpenCode restarted", error)
    }
  }

  /**
   * The fresh session a restart created just before OpenCode died, before its id reached the state
   * file: still empty, titled for the next iteration, made since this iteration began.
   */
  private async createdBeforeCrash(loop: Loop): Promise<string | undefined> {
    const title = sessionTitle(loop, loop.iteration + 1)
    const candidates = (await this.api.sessions().catch(() => []))
      .filter((s) => s.title === title && !s.parentID && s.time.created >= loop.iterationStartedAt && !this.manager.get(s.id))
    for (const session of candidates) if (await this.isEmpty(session.id)) return session.id
    return undefined
  }

  private isEmpty(sessionID: string): Promise<boolean> {
    return this.api.messages(sessionID).then((messages) => messages.length === 0, () => false)
  }

  /** The iteration's prompt never reached its session (OpenCode stopped in between): send it again. */
  private async reopen(loop: Loop, emptySession: boolean): Promise<void> {
    const previous = loop.lineage.at(-1)
    const text = !emptySession
      ? continuePrompt(loop, loop.iteration)
      : previous
        ? freshSessionPrompt(loop, loop.iteration, (await readSummaryFile(this.options.directory, loop.settings.summaryPath, previous)) ?? "")
        : `${loop.task}\n\n${loopRules(loop.settings)}`
    loop.needsInstruction = false
    this.manager.promptSent(loop)
    await this.prompt(loop, loop.sessionID, text, loop.lastTurn)
  }

  /** Ends the timer of a loop that stopped or was resumed by the user. */
  cancelTimer(loop: Loop): void {
    const timer = this.timers.get(loop)
    if (timer) clearTimeout(timer)
    this.timers.delete(loop)
  }

  dispose(): void {
    this.disposed = true
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
  }

  private async perform(loop: Loop, decision: Decision, turn: Turn, userEpoch = loop.userEpoch): Promise<void> {
    switch (decision.type) {
      case "ignore":
        return this.manager.keepWatching(loop)
      case "wait-for-user":
        this.api.log("info", "turn ended with a request waiting for the user; nothing sent", { loop: loop.id })
        // A request still listed at an idle lost its reply event: the next idle decides normally.
        loop.turnEvents.pending = []
        return this.manager.keepWatching(loop)
      case "complete":
        this.manager.stop(loop, "completed", decision.detail)
        this.notify(notice.completed(loop, decision.detail))
        this.api.log("info", "loop completed", { loop: loop.id, iterations: loop.iteration, sessions: [...loop.lineage, loop.sessionID] })
        return
      case "stop":
        this.manager.stop(loop, decision.reason, decision.detail)
        this.notify(notice.stopped(loop, decision.reason, decision.detail))
        this.api.log("warn", `loop stopped: ${decision.detail}`, { loop: loop.id, reason: decision.reason })
        return
      case "report-missing-promise":
        this.manager.keepWatching(loop)
        return this.notify(notice.missingPromise(loop))
      case "pause":
        this.manager.pause(loop, decision.reason)
        this.notify(notice.paused(decision.reason))
        this.api.log("info", "loop paused", { loop: loop.id, reason: decision.reason })
        return
      case "wait":
        this.manager.wait(loop, decision.wait, decision.detail)
        this.notify(notice.waiting(decision.wait, decision.detail))
        this.api.log("info", `loop waiting (${decision.wait.reason}) until ${new Date(decision.wait.until).toISOString()}`, { loop: loop.id })
        return this.schedule(loop, decision.wait.until)
      case "restart":
        return this.iterate(loop, turn, decision, userEpoch)
    }
  }

  /** Starts the next iteration by the strategy (`fresh`: in a new session whatever the strategy). */
  private async iterate(loop: Loop, turn: Turn, restart: PendingRestart, userEpoch = loop.userEpoch): Promise<void> {
    if (!this.manager.beginRestart(loop, restart)) return
    this.reached("restart.begun")
    const { fresh, note, feedback } = restart
    if (loop.settings.strategy === "continue" && !fresh) await this.continueInPlace(loop, turn, note, feedback)
    else await this.restartFresh(loop, turn, loop.settings.strategy === "recreate", note, feedback, userEpoch)
  }

  /** Still restarting, and the user has not written meanwhile (then their turn wins: keep watching). */
  private stillRestarting(loop: Loop, userEpoch: number): boolean {
    if (loop.phase !== "restarting") return false
    if (loop.userEpoch === userEpoch) return true
    this.manager.keepWatching(loop, true)
    return false
  }

  /** Strategy `continue`: the same session gets the next prompt. */
  private async continueInPlace(loop: Loop, turn: Turn, note?: string, feedback?: string): Promise<void> {
    const gotchas = loop.gotchas.length ? await this.gotchaLines(loop) : []
    if (loop.phase !== "restarting") return
    // Counted before the prompt is sent, so the busy status it causes is seen as this loop's.
    if (!this.manager.nextIteration(loop, loop.sessionID)) return
    if (!(await this.prompt(loop, loop.sessionID, continuePrompt(loop, loop.iteration, note, feedback, gotchas), turn))) return
    this.notify(notice.iterationStarted(loop, "Continuing in the same session."))
  }

  /** Strategies `recreate` and `fresh`: summarize, write the summary, go on in a new session. */
  private async restartFresh(loop: Loop, turn: Turn, retireOld: boolean, note?: string, feedback?: string, userEpoch = loop.userEpoch): Promise<void> {
    const oldSessionID = loop.sessionID
    const nextIteration = loop.iteration + 1
    const { summary: modelSummary, source } = await this.summarize(loop, turn)
    this.reached("summarize.after")
    if (!this.stillRestarting(loop, userEpoch)) return
    const summary = buildHandoff(modelSummary, await this.handoffFacts(loop, nextIteration))
    const summaryFile = await writeSummary(this.options.directory, {
      loop, sessionID: oldSessionID, nextIteration, summary, source, at: new Date(this.now()),
    })
    this.reached("summary.written")
    if (!this.stillRestarting(loop, userEpoch)) return
    const sessionID = await this.freshSession(loop, nextIteration)
    this.reached("session.created")
    // Cancelled or overtaken meanwhile: the empty session is left alone, the TUI is not moved.
    if (!this.stillRestarting(loop, userEpoch)) return
    await this.api.selectSession(sessionID).catch((error: unknown) =>
      this.api.log("warn", "could not point the TUI at the new session", { session: sessionID, error: String(error) }))
    this.reached("session.selected")
    if (!this.stillRestarting(loop, userEpoch)) return
    // The user started a loop of their own in the new session meanwhile: that one wins.
    if (!this.manager.nextIteration(loop, sessionID, retireOld)) return this.manager.pause(loop, "another loop took over its new session")
    if (!(await this.prompt(loop, sessionID, freshSessionPrompt(loop, nextIteration, summary, note, feedback), turn))) return
    this.notify(notice.iterationStarted(loop, `Fresh session; handoff in ${relative(this.options.directory, summaryFile)}.`))
    this.api.log("info", "loop restarted in a fresh session", { loop: loop.id, from: oldSessionID, to: sessionID, iteration: loop.iteration })
    if (retireOld) await this.retire(loop, oldSessionID)
  }

  /**
   * The restart's fresh session: the one it created before it was cut short (by a crash, or by the
   * user typing), if that is still empty; else a new one, on disk before anything happens in it.
   */
  private async freshSession(loop: Loop, iteration: number): Promise<string> {
    const created = loop.restart?.sessionID
    if (created && (await this.isEmpty(created))) return created
    const session = await this.api.createSession(sessionTitle(loop, iteration))
    this.manager.sessionCreated(loop, session.id)
    await this.persisted(loop)
    return session.id
  }

  /**
   * Sends a prompt of the loop — once the state that counts it is on disk, so that after a crash
   * recovery finds the prompt in the session or knows it must send it. False: not sent, because the
   * loop was stopped, paused or the user wrote while that state was being written.
   */
  private async prompt(loop: Loop, sessionID: string, text: string, turn: Turn | undefined): Promise<boolean> {
    if (this.disposed) throw new Error("the plugin instance was disposed")
    const { userEpoch, busyEpoch } = loop
    await this.persisted(loop)
    // Stopped, paused, or the session went to work meanwhile (the user wrote): that turn is watched instead.
    if (loop.phase !== "running" || loop.userEpoch !== userEpoch || loop.busyEpoch !== busyEpoch) return false
    this.reached("iteration.saved")
    this.manager.recordCall(loop, this.now())
    await this.api.promptAsync(sessionID, { text, agent: turn?.agent, model: turn?.model })
    this.reached("prompt.sent")
    loop.hints = []
    return true
  }

  /**
   * The handoff: the summary OpenCode's compaction already wrote (after a context overflow), or
   * the model's summary of the session, or — if that fails — the end of its last reply.
   */
  private async summarize(loop: Loop, turn: Turn): Promise<{ summary: string; source: "model" | "fallback" }> {
    const sessionID = loop.sessionID
    const model = turn.model
    const summarized = async (model: NonNullable<Turn["model"]>) => {
      this.manager.recordCall(loop, this.now())
      this.reached("summarize.before")
      await this.api.summarize(sessionID, model)
      return this.api.messages(sessionID)
    }
    try {
      // After a compaction (OpenCode's after an overflow, or ours before a crash) the summary may be there already.
      let messages = turn.compacted || !model ? await this.api.messages(sessionID) : await summarized(model)
      let summary = readSummary(messages)
      // A summary a crash cut off is no summary: ask again.
      if (!summary && turn.compacted && model) summary = readSummary((messages = await summarized(model)))
      loop.usage[sessionID] = sessionUsage(messages)
      if (summary) return { summary, source: "model" }
      this.api.log("warn", "no summary was produced; using the last reply as the handoff", { session: sessionID })
    } catch (error) {
      this.api.log("warn", "session.summarize failed; using the last reply as the handoff", { session: sessionID, error: String(error) })
    }
    const last = turn.texts.join("\n").trim()
    const summary = last
      ? `The previous session ended with this reply (no model summary was available):\n\n${last.slice(-FALLBACK_REPLY_CHARS)}`
      : ""
    return { summary, source: "fallback" }
  }

  /** The old sessions a crash kept from being archived and deleted. */
  private async retireAll(loop: Loop): Promise<void> {
    for (const sessionID of [...loop.retiring]) await this.retire(loop, sessionID)
  }

  /** Strategy `recreate`: archive the old session's transcript, then delete it — only once idle. */
  private async retire(loop: Loop, sessionID: string): Promise<void> {
    try {
      if (!(await this.waitUntilIdle(sessionID))) {
        this.api.log("warn", "old session did not go idle; it is kept", { session: sessionID })
        return
      }
      this.reached("retire.idle")
      const messages: MessageWithParts[] = await this.api.messages(sessionID)
      await writeTranscript(this.options.directory, loop.settings.summaryPath, sessionID, messages)
      this.reached("transcript.written")
      // The user started a new loop in the old session meanwhile: it is theirs now, kept.
      if (this.manager.get(sessionID)) return
      await this.api.deleteSession(sessionID)
      this.reached("session.deleted")
      this.api.log("info", "old session archived and deleted", { loop: loop.id, session: sessionID })
    } catch (error) {
      this.api.log("warn", "could not archive and delete the old session; it is kept", { session: sessionID, error: String(error) })
    } finally {
      // Deleted, kept for good, or gone already: either way not tried again.
      this.manager.retired(loop, sessionID)
    }
  }

  private async waitUntilIdle(sessionID: string): Promise<boolean> {
    const deadline = this.now() + this.idleWaitMs
    while (!(await this.api.isIdle(sessionID))) {
      if (this.now() >= deadline) return false
      await sleep(200)
    }
    return true
  }

  /** The facts of the handoff digest, gathered from git, the session's todos and the loop's history. */
  private async handoffFacts(loop: Loop, nextIteration: number): Promise<HandoffFacts> {
    const ignore = ownFolders(loop)
    const [files, todos] = await Promise.all([
      filesChangedSince(this.options.directory, loop.startHead, ignore).catch(() => []),
      this.api.todos(loop.sessionID).catch(() => []),
    ])
    const last = loop.snapshots.at(-1)
    const failingChecks = last ? last.checks.filter((c) => c.status !== "passed").map((c) => `${c.name} (${c.kind}): ${c.status} — ${c.output.trim().split("\n").slice(-3).join(" / ")}`) : []
    const tried = [
      ...loop.snapshots.filter((s) => s.checks.some((c) => c.status !== "passed")).slice(-3).map((s) => `iteration ${s.iteration}: ${unmetCriteria(s, loop.settings).join(", ")}`),
      ...(loop.breaker.lastError ? [`the last turn ended in: ${loop.breaker.lastError}`] : []),
    ]
    return {
      goal: loop.task,
      iteration: nextIteration,
      maxIterations: maxIterations(loop),
      files,
      failingChecks,
      openTodos: todos.filter((t) => t.status !== "completed" && t.status !== "cancelled").map((t) => t.content),
      tried,
      recurring: recurringFailures(loop.snapshots),
      gotchas: gotchaText(gotchasFor(loop.gotchas, files)),
    }
  }

  /** The loop's gotchas that concern the files it changed, as prompt lines. */
  private async gotchaLines(loop: Loop): Promise<string[]> {
    const files = await filesChangedSince(this.options.directory, loop.startHead, ownFolders(loop)).catch(() => [])
    return gotchaText(gotchasFor(loop.gotchas, files))
  }

  /** Remembers HEAD at the start of a loop, for "files changed since the loop began". */
  async captureStart(loop: Loop): Promise<void> {
    loop.startHead ??= await headCommit(this.options.directory).catch(() => undefined)
  }

  /** Runs the loop's checks when the turn claims completion (or after every iteration, by config). */
  private async checkIfDue(loop: Loop, turn: Turn): Promise<DiagnosticSnapshot | undefined> {
    const checks = loop.settings.checks
    if (checks.length === 0) return undefined
    if (loop.settings.checkAfter !== "iteration" && !claimsCompletion(loop, turn)) return undefined
    this.notify({ variant: "info", title: iterationTitle(loop), message: `Running ${checks.length} check${checks.length === 1 ? "" : "s"}: ${checks.map((c) => c.name).join(", ")}…` })
    const results: CheckResult[] = []
    for (const check of checks) results.push(await runCheck(check, this.options.directory))
    const snapshot = snapshotOf(loop.iteration, this.now(), results)
    this.api.log("info", "checks ran", { loop: loop.id, iteration: loop.iteration, results: results.map((r) => ({ name: r.name, status: r.status, exitCode: r.exitCode, durationMs: r.durationMs })) })
    for (const missing of results.filter((r) => r.status === "missing" || r.status === "timeout"))
      this.notify({ variant: "warning", title: `Ralph · check ${missing.status === "missing" ? "could not run" : "timed out"}`, message: `${missing.name}: ${missing.command}${missing.status === "missing" ? " — command not found; is the tool installed?" : ` — killed after ${Math.round(missing.durationMs / 1000)} s`}` })
    return snapshot
  }

  /** Progress facts: the work tree and the session's completed todos. */
  private async sample(loop: Loop): Promise<ProgressSample> {
    const ignore = ownFolders(loop)
    this.prefix ??= repositoryPrefix(this.options.directory)
    const prefix = await this.prefix
    const [workTree, todos] = await Promise.all([
      prefix === undefined ? undefined : sampleWorkTree(this.options.directory, prefix, ignore),
      this.api.todos(loop.sessionID).catch(() => []),
    ])
    return { workTree, todosCompleted: todos.filter((t) => t.status === "completed").length, sessionID: loop.sessionID }
  }

  private schedule(loop: Loop, until: number): void {
    this.cancelTimer(loop)
    const timer = setTimeout(() => {
      this.timers.delete(loop)
      void this.wake(loop)
    }, Math.max(0, until - this.now()))
    timer.unref?.()
    this.timers.set(loop, timer)
  }

  /** A wait is over: the breaker half-opens, the call window has reset, or the back-off is done. */
  private async wake(loop: Loop): Promise<void> {
    const wait = loop.wait
    if (loop.phase !== "waiting" || !wait) return
    try {
      const now = this.now()
      if (wait.reason === "breaker") {
        const before = loop.breaker.state
        loop.breaker = afterCooldown(loop.breaker, loop.settings, now)
        this.notify(notice.breakerChanged(before, loop.breaker.state))
      }
      const breach = exceededBudget(loop, now)
      if (breach && wait.then === "next") {
        this.manager.stop(loop, breach.reason, breach.detail)
        return this.notify(notice.stopped(loop, breach.reason, breach.detail))
      }
      const idle = await this.api.isIdle(loop.sessionID)
      if (loop.phase !== "waiting") return
      // A turn is under way (a control command's, say): look again shortly, still waiting.
      if (!idle) return this.schedule(loop, this.now() + 2_000)
      const calls = wait.then === "resume" || (loop.settings.strategy === "continue" && !wait.fresh) ? 1 : 2
      const blocked = blockedUntil(loop.calls, loop.settings, now, calls)
      if (blocked !== undefined) {
        const next = { ...wait, reason: "call-limit" as const, until: blocked }
        const detail = `${loop.settings.maxCallsPerHour} calls per window reached (maxCallsPerHour)`
        this.manager.wait(loop, next, detail)
        this.notify(notice.waiting(next, detail))
        return this.schedule(loop, blocked)
      }
      await this.goOn(loop, wait)
    } catch (error) {
      this.fail(loop, "could not continue the loop after waiting", error)
    }
  }

  /** /ralph-resume from another session of the loop: go on now (never throws). */
  async resumeNow(loop: Loop, how: Pick<Wait, "then" | "fresh">): Promise<void> {
    try {
      if (!(await this.api.isIdle(loop.sessionID))) return
      // Paused between a prompt and its turn (the last prompt has no answer yet): that prompt is still
      // to run, and is the turn watched.
      const messages = await this.api.messages(loop.sessionID)
      if (messages.length > 0 && readTurn(messages).lastAssistantID === undefined) return
      await this.goOn(loop, how, "The user resumed the loop. Continue the task from where you stopped.")
    } catch (error) {
      this.fail(loop, "could not resume the loop", error)
    }
  }

  /** After a wait or a resume: the same iteration resumes, or the next one starts. */
  private async goOn(loop: Loop, how: Pick<Wait, "then" | "fresh">, why?: string): Promise<void> {
    const turn = loop.lastTurn ?? { texts: [] }
    if (loop.phase === "stopped" || loop.phase === "paused") return
    // A next iteration by hand (/ralph-resume of a breaker wait) is still bound by the budgets.
    const breach = how.then === "next" ? exceededBudget(loop, this.now()) : undefined
    if (breach) {
      this.manager.stop(loop, breach.reason, breach.detail)
      return this.notify(notice.stopped(loop, breach.reason, breach.detail))
    }
    if (how.then === "resume") {
      this.manager.promptSent(loop)
      if (!(await this.prompt(loop, loop.sessionID, resumePrompt(loop, why), turn))) return
      return this.notify(notice.iterationStarted(loop, why ? "Resumed." : "Resuming after the provider's limit."))
    }
    await this.iterate(loop, turn, { fresh: how.fresh ?? false })
  }

  /** Something the loop needed failed: pause it, say why, send nothing more. */
  private fail(loop: Loop, what: string, error: unknown): void {
    this.api.log("error", `${what}: ${String(error)}`, { loop: loop.id, session: loop.sessionID })
    if (loop.phase === "stopped") return
    this.manager.pause(loop, `${what} (${error instanceof Error ? error.message : String(error)})`)
    this.notify(notice.failed(what, error))
  }
}
