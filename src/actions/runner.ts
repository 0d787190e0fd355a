// ActionRunner: performs what the loop decided, with the SDK client OpenCode gave the plugin.
// Every step that awaits re-checks the loop afterwards: the user may have cancelled meanwhile.
import { relative } from "node:path"
import { decide, type Decision } from "../loop/decide.js"
import { maxIterations, type Loop } from "../loop/loop.js"
import type { LoopManager } from "../loop/manager.js"
import { continuePrompt, freshSessionPrompt, promiseTag, sessionTitle, shorten } from "../loop/prompts.js"
import type { Turn } from "../loop/turn.js"
import type { OpencodeApi } from "../opencode/api.js"
import { readSummary, readTurn } from "../opencode/read-turn.js"
import { writeSummary, writeTranscript } from "../store/session-files.js"

export interface RunnerOptions {
  directory: string
  now?: () => number
  /** How long to wait for an old session to go idle before deleting it. */
  idleWaitMs?: number
}

const FALLBACK_SUMMARY_CHARS = 4000

export class ActionRunner {
  private readonly now: () => number
  private readonly idleWaitMs: number

  constructor(
    private readonly api: OpencodeApi,
    private readonly manager: LoopManager,
    private readonly options: RunnerOptions,
  ) {
    this.now = options.now ?? Date.now
    this.idleWaitMs = options.idleWaitMs ?? 10_000
  }

  /** A turn of `loop` ended (its idle was claimed): read it, decide, act. Never throws. */
  async onTurnEnded(loop: Loop): Promise<void> {
    try {
      const turn = readTurn(await this.api.messages(loop.sessionID))
      if (loop.phase !== "deciding") return
      const decision = decide(loop, turn)
      this.api.log("debug", `idle of ${loop.sessionID}: ${decision.type}`, { loop: loop.id, iteration: loop.iteration })
      if (decision.type !== "ignore") this.manager.decided(loop, turn.lastAssistantID)
      await this.perform(loop, decision, turn)
    } catch (error) {
      this.fail(loop, "could not handle the end of a turn", error)
    }
  }

  toastLoopStarted(loop: Loop): void {
    this.api.toast("info", `Ralph ${loop.iteration}/${maxIterations(loop)} · ${shorten(loop.task, 50)}`,
      `Loop started (${loop.settings.strategy}). It ends when the model writes ${promiseTag(loop.settings.promiseWord)}.`)
  }

  private async perform(loop: Loop, decision: Decision, turn: Turn): Promise<void> {
    switch (decision.type) {
      case "ignore":
        this.manager.keepWatching(loop)
        return
      case "complete":
        this.manager.stop(loop, "completed")
        this.api.toast("success", "Ralph · done",
          `${shorten(loop.task, 60)} — finished in ${loop.iteration} iteration${loop.iteration === 1 ? "" : "s"}.`)
        this.api.log("info", "loop completed", { loop: loop.id, iterations: loop.iteration, sessions: [...loop.lineage, loop.sessionID] })
        return
      case "retries-exhausted":
        this.manager.stop(loop, "retries-exhausted")
        this.api.toast("warning", "Ralph · retry limit reached",
          `Stopped after ${loop.retries} restart${loop.retries === 1 ? "" : "s"} (maxRetries ${loop.settings.maxRetries}) without ${promiseTag(loop.settings.promiseWord)}. The work so far is in the session.`,
          15_000)
        this.api.log("warn", "loop stopped: retries exhausted", { loop: loop.id, retries: loop.retries })
        return
      case "report-missing-promise":
        this.manager.keepWatching(loop)
        this.api.toast("warning", "Ralph · no promise yet",
          `The model stopped without ${promiseTag(loop.settings.promiseWord)}. autoRestart is off, so nothing was sent; reply to go on.`)
        return
      case "pause":
        this.manager.pause(loop, decision.reason)
        this.api.toast("warning", "Ralph · paused",
          `Paused: ${decision.reason}. Send a message in this session to resume the loop, or /cancel-ralph to end it.`, 15_000)
        this.api.log("info", "loop paused", { loop: loop.id, reason: decision.reason })
        return
      case "restart":
        this.manager.beginRestart(loop)
        if (loop.settings.strategy === "continue") await this.continueInPlace(loop, turn)
        else await this.restartFresh(loop, turn, loop.settings.strategy === "recreate")
        return
    }
  }

  /** Strategy `continue`: the same session gets the next prompt. */
  private async continueInPlace(loop: Loop, turn: Turn): Promise<void> {
    // Counted before the prompt is sent, so the busy status it causes is seen as this loop's.
    this.manager.nextIteration(loop, loop.sessionID)
    await this.api.promptAsync(loop.sessionID, { text: continuePrompt(loop, loop.iteration), agent: turn.agent, model: turn.model })
    this.toastIteration(loop, "Continuing in the same session.")
  }

  /** Strategies `recreate` and `fresh`: summarize, write the summary, go on in a new session. */
  private async restartFresh(loop: Loop, turn: Turn, retireOld: boolean): Promise<void> {
    const oldSessionID = loop.sessionID
    const nextIteration = loop.iteration + 1
    const { summary, source } = await this.summarize(oldSessionID, turn)
    if (loop.phase !== "restarting") return
    const summaryFile = await writeSummary(this.options.directory, {
      loop, sessionID: oldSessionID, nextIteration, summary, source, at: new Date(this.now()),
    })
    const session = await this.api.createSession(sessionTitle(loop, nextIteration))
    if (loop.phase !== "restarting") return
    this.manager.nextIteration(loop, session.id)
    await this.api.selectSession(session.id).catch((error: unknown) =>
      this.api.log("warn", "could not point the TUI at the new session", { session: session.id, error: String(error) }))
    await this.api.promptAsync(session.id, {
      text: freshSessionPrompt(loop, nextIteration, summary), agent: turn.agent, model: turn.model,
    })
    this.toastIteration(loop, `Fresh session; handoff in ${relative(this.options.directory, summaryFile)}.`)
    this.api.log("info", "loop restarted in a fresh session", { loop: loop.id, from: oldSessionID, to: session.id, iteration: loop.iteration })
    if (retireOld) await this.retire(loop, oldSessionID)
  }

  /** The model's summary of the session, or — if that fails — the end of its last turn. */
  private async summarize(sessionID: string, turn: Turn): Promise<{ summary: string; source: "model" | "fallback" }> {
    if (turn.model) {
      try {
        await this.api.summarize(sessionID, turn.model)
        const summary = readSummary(await this.api.messages(sessionID))
        if (summary) return { summary, source: "model" }
        this.api.log("warn", "session.summarize produced no text; using the last reply as the handoff", { session: sessionID })
      } catch (error) {
        this.api.log("warn", "session.summarize failed; using the last reply as the handoff", { session: sessionID, error: String(error) })
      }
    }
    const last = turn.texts.join("\n").trim()
    const summary = last
      ? `The previous session ended with this reply (no model summary was available):\n\n${last.slice(-FALLBACK_SUMMARY_CHARS)}`
      : ""
    return { summary, source: "fallback" }
  }

  /** Strategy `recreate`: archive the old session's transcript, then delete it — only once idle. */
  private async retire(loop: Loop, sessionID: string): Promise<void> {
    try {
      if (!(await this.waitUntilIdle(sessionID))) {
        this.api.log("warn", "old session did not go idle; it is kept", { session: sessionID })
        return
      }
      await writeTranscript(this.options.directory, loop.settings.summaryPath, sessionID, await this.api.messages(sessionID))
      await this.api.deleteSession(sessionID)
      this.api.log("info", "old session archived and deleted", { loop: loop.id, session: sessionID })
    } catch (error) {
      this.api.log("warn", "could not archive and delete the old session; it is kept", { session: sessionID, error: String(error) })
    }
  }

  private async waitUntilIdle(sessionID: string): Promise<boolean> {
    const deadline = this.now() + this.idleWaitMs
    while (!(await this.api.isIdle(sessionID))) {
      if (this.now() >= deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    return true
  }

  private toastIteration(loop: Loop, message: string): void {
    this.api.toast("info", `Ralph ${loop.iteration}/${maxIterations(loop)} · ${shorten(loop.task, 50)}`, message)
  }

  /** Something the loop needed failed: pause it, say why, send nothing more. */
  private fail(loop: Loop, what: string, error: unknown): void {
    this.api.log("error", `${what}: ${String(error)}`, { loop: loop.id, session: loop.sessionID })
    if (loop.phase === "stopped") return
    this.manager.pause(loop, `${what} (${error instanceof Error ? error.message : String(error)})`)
    this.api.toast("error", "Ralph · paused after an error",
      `${what}: ${error instanceof Error ? error.message : String(error)}. Send a message to resume, or /cancel-ralph.`, 20_000)
  }
}
