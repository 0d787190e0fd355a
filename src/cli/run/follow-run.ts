// `ralph-loop run` following its loop, once the server is up and the loop started or taken back: it
// turns the plugin's journal lines into the run's events, asks the plugin to resume or to pause on a
// signal, and ends the run when the loop ends, the server dies or the interrupt is done.
import { notVerifiedBecause } from "../../evidence/record.js"
import type { Loop } from "../../loop/loop.js"
import type { RunArgs } from "./args.js"
import { interruptLoop, resumeLoop } from "./control-requests.js"
import { endSteps, type JournalTail, readLoopState, stateAsOf } from "./follow.js"
import { followState, noteEntry, type FollowState } from "./follow-state.js"
import type { Host } from "./host.js"
import { translate, type FollowMemory } from "./journal-events.js"
import { stateNow } from "./loop-files.js"
import type { RunOutput } from "./run-output.js"
import type { RunSessions } from "./run-sessions.js"
import type { ServerEvents } from "./server-events.js"
import { storyBranchMissing } from "./story-branch-check.js"

/** How long the end of a loop may take to be complete on disk (old sessions retired, report written). */
const END_STEPS_MS = 30_000
/** How often the loop's files are looked at. */
const FOLLOW_MS = 150
/** An interrupt during a rollback: how long the restore may still take before the server is stopped all the same. */
const ROLLBACK_MS = 120_000

/** What the follow does after a look at the journal: the run's end, one more look at once, or a nap. */
type Step = number | "look-again" | "nap"

/** The run around the follow. */
export interface FollowedRun {
  args: RunArgs
  output: RunOutput
  host: Host
  events: ServerEvents
  sessions: RunSessions
  loopID: string
  /** The signal that came, if one did. */
  interrupt: () => NodeJS.Signals | undefined
}

export class LoopFollow {
  private readonly state: FollowState
  private poked: () => void = () => undefined

  constructor(
    private readonly run: FollowedRun,
    private readonly tail: JournalTail,
    private readonly commandSettled: Promise<string | undefined> | undefined,
    resumed: boolean,
    memory: FollowMemory,
  ) {
    const recoveryDeadline = Date.now() + END_STEPS_MS
    const done = commandSettled === undefined
    const state = followState(resumed, memory, run.host.started, recoveryDeadline, done)
    this.state = state
    void run.host.exited.then((how) => {
      state.gone = how
      this.poke()
    })
    void commandSettled?.then((error) => {
      state.commandError = error
      state.commandDone = true
      this.poke()
    })
  }

  /** Something happened (a signal, the server gone, /ralph answered): look now. */
  poke(): void {
    this.poked()
  }

  /**
   * Follows the loop until it ends, the server dies or a signal comes. The runner acts only on what
   * the plugin journals after its own request — its /ralph, or for --resume its resume, sent once
   * the server has taken the loop back — and on a pause by its cause (journal-events.ts).
   */
  async follow(): Promise<number> {
    for (;;) {
      const ended = await this.readJournal()
      if (ended !== undefined) return ended
      const step = await this.nextStep()
      if (typeof step === "number") return step
      if (step === "nap") await this.nap()
    }
  }

  /** The loop's new journal lines, as the run's events; the run's end once a line ends the loop. */
  private async readJournal(): Promise<number | undefined> {
    const { state, run } = this
    const entries = (await this.tail.read()).filter((e) => e.loop.id === run.loopID)
    for (const entry of entries) {
      state.lastAt = Date.parse(entry.at)
      const saved = await stateAsOf(() => readLoopState(run.args.project, entry.loop.id), state.lastAt)
      if (saved) {
        state.loop = saved.loop
        run.sessions.note(saved.loop)
      }
      noteEntry(state, entry)
      const translated = translate(entry, stateNow(saved?.loop), state.memory, state.resumed, state.requested)
      state.memory = translated.memory
      for (const event of translated.events) run.output.emit(event)
      if (translated.resume) state.resumeWanted = true
      if (translated.end) return this.ended(entry.loop.id, translated.end, state.loop)
    }
    return undefined
  }

  /** After a look at the journal: what the server, a signal, a resume or the /ralph command call for. */
  private async nextStep(): Promise<Step> {
    const { state, run } = this
    if (state.gone !== undefined) {
      const server = run.host.started ? "the OpenCode server" : `the OpenCode server at ${run.host.url}`
      const resume = `\`ralph-loop run --resume ${run.loopID}\` takes the loop back`
      return run.output.failed(`${server} ${state.gone} while the loop ran; ${resume}`, undefined, state.loop)
    }
    const signal = run.interrupt()
    if (signal && state.signalAt === undefined) {
      state.signalAt = Date.now()
      run.output.emit({ type: "interrupt", signal, action: run.args.onInterrupt })
    }
    // /ralph is on its way (or answered): the loop it may have started is the signal's, once its
    // started line says it runs; until then, the follow waits for that line or the command's answer.
    if (signal && !state.interruptAsked && state.started) {
      state.interruptAsked = true
      const refused = await this.interruptLoop(signal)
      if (refused !== undefined) return this.stopped(refused)
      // The loop's paused (or stopped) line ends the follow, once its state is on disk.
      state.interruptDeadline = Date.now() + END_STEPS_MS
      return "look-again"
    }
    if (signal && !state.started && Date.now() > (state.signalAt ?? 0) + END_STEPS_MS) {
      return this.stopped(
        `${signal} after /ralph was sent, and the plugin journalled no start of its loop within ` +
          `${END_STEPS_MS / 1000} s; \`ralph-loop status\` says whether it runs`,
      )
    }
    const step = await this.requestStep()
    return step === "nap" ? this.commandStep() : step
  }

  /** An interrupt asked for, a resume due, or the loop not taken back in time. */
  private async requestStep(): Promise<Step> {
    const { state, run } = this
    if (state.interruptDeadline !== undefined) {
      // A loop paused already (a person, a rollback) writes no new line: its state says so — once a
      // rollback under way has written the work tree back (the server is not stopped under it).
      const saved = await readLoopState(run.args.project, run.loopID)
      const now = saved?.loop ?? state.loop
      // Paused before the run asked (a --resume's loop its server took back paused): no new line comes.
      const before = saved !== undefined && saved.savedAt < (state.signalAt ?? 0)
      if (now?.phase === "paused" && (now.pauseCause !== "interrupt" || before) && !state.rollbackUnderWay) {
        return this.stopped(`${now.detail ?? "paused"}; \`ralph-loop run --resume ${now.id}\` goes on`)
      }
      if (Date.now() > state.interruptDeadline + (state.rollbackUnderWay ? ROLLBACK_MS : 0)) {
        return this.stopped("the plugin took the request but its state did not say so in time")
      }
    } else if (!state.requested && state.recovered) {
      const refused = await this.resumeLoop()
      if (refused !== undefined) return refused
      state.requested = true
      return "look-again"
    } else if (!state.requested && Date.now() > state.recoveryDeadline) {
      return run.output.failed(
        `OpenCode did not take loop ${run.loopID} back at its start (no "recovered" line in its journal within ` +
          `${END_STEPS_MS / 1000} s)`,
      )
    } else if (state.resumeWanted) {
      state.resumeWanted = false
      const refused = await this.resumeLoop()
      if (refused !== undefined) return refused
    }
    return "nap"
  }

  /** The first turn is over and no loop started: /ralph refused (its toast says why), or the command failed. */
  private commandStep(): Step {
    const { state, run } = this
    if (!state.commandDone || state.started) return "nap"
    // Its started line may have landed since this look: one more look, through the top.
    if (!state.lookedAgain) {
      state.lookedAgain = true
      return "look-again"
    }
    if (state.commandError) return run.output.failed(`/ralph failed in OpenCode: ${state.commandError}`)
    const toast = [...run.events.toasts].reverse().find((t) => /^Ralph · (not started|no task)/.test(t.title))
    return run.output.failed(toast ? toast.message : "/ralph started no loop", { kind: "usage" })
  }

  private async stopped(detail: string): Promise<number> {
    const more = await this.settled()
    return this.run.output.end({ kind: "interrupted" }, "interrupted", detail + more, this.state.loop)
  }

  /**
   * Before an interrupted run's end: nothing of the loop may reach the model after it. A server the
   * run started is stopped first (its turn under way cut off). An --attach one keeps running: if the
   * run's /ralph has not answered yet, its first turn (which OpenCode may still be about to send) is
   * waited for — the loop is paused or cancelled, so nothing follows that turn. What to add to the end's detail.
   */
  private async settled(): Promise<string> {
    const { host } = this.run
    if (host.started) {
      await host.stop()
      return ""
    }
    if (this.commandSettled === undefined || this.state.commandDone) return ""
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), ROLLBACK_MS)
    })
    const answer = await Promise.race([this.commandSettled.then(() => "answered" as const), late])
    clearTimeout(timer)
    return answer === "late" ? `; its first turn still runs in the server at ${host.url}` : ""
  }

  /** Until the next look at the loop's files, or until something happens (poke). */
  private nap(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FOLLOW_MS)
      this.poked = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  /** The loop's end line: its last steps, then the run's end (a --story loop's branch checked). */
  private async ended(
    loopID: string,
    end: NonNullable<ReturnType<typeof translate>["end"]>,
    seen: Loop | undefined,
  ): Promise<number> {
    const { output, args } = this.run
    const loop = (await endSteps(args.project, loopID, end.kind, END_STEPS_MS, FOLLOW_MS)) ?? seen
    await this.flushTexts(loop)
    const detail = loop?.detail ?? null
    const goesOn = `\`ralph-loop run --resume ${loopID}\` goes on`
    if (this.run.interrupt()) {
      const more = await this.settled()
      if (end.kind === "paused") {
        return output.end({ kind: "interrupted" }, "interrupted", `${detail ?? "paused"}; ${goesOn}${more}`, loop)
      }
      if (more) return output.end(end, end.reason, `${detail ?? end.reason}${more}`, loop)
    }
    if (end.kind === "paused") {
      const said = `${detail ?? "paused"}; nobody is there to resume it: ${goesOn}`
      return output.end({ kind: "paused" }, "paused", said, loop)
    }
    const missing = loop ? await storyBranchMissing(args.project, loop) : undefined
    if (missing) return output.failed(missing, { kind: "story-not-committed" }, loop)
    if (args.requireVerified && end.kind === "stopped" && end.reason === "completed" && !loop?.evidence?.verified) {
      const why = loop?.evidence ? notVerifiedBecause(loop.evidence) : "no evidence was recorded"
      return output.end(
        { kind: "not-verified" },
        "not-verified",
        `${detail ?? "completed"}; not verified: ${why}`,
        loop,
      )
    }
    return output.end(end, end.reason, detail, loop)
  }

  /** --resume through the control channel (control-requests.ts): undefined when it went on; else the run's end. */
  private async resumeLoop(): Promise<number | undefined> {
    const refusal = await resumeLoop(this.run.args.project, this.run.loopID, this.state.lastAt)
    return refusal && this.run.output.failed(refusal.message, refusal.ending)
  }

  /**
   * SIGINT/SIGTERM: the loop is paused (or cancelled) through the plugin's control channel — no
   * model turn; the turn under way is cut off when the server stops, and recovery takes it up at
   * --resume. Undefined when the plugin did it; else what happened instead (the run then ends anyway).
   */
  private async interruptLoop(signal: NodeJS.Signals): Promise<string | undefined> {
    const { args, output, loopID } = this.run
    const action = args.onInterrupt
    const said = await interruptLoop(args.project, loopID, signal, action)
    if (said !== undefined) output.emit({ type: "error", message: said })
    return said
  }

  /** The model's last texts before the end line (--verbose); a failure to read them costs only those lines. */
  private async flushTexts(loop: Loop | undefined): Promise<void> {
    if (!loop) return
    try {
      await this.run.events.flush([loop.sessionID, ...(loop.review?.session ? [loop.review.session] : [])])
    } catch (error) {
      const message = `reading the model's last texts: ${error instanceof Error ? error.message : String(error)}`
      this.run.output.emit({ type: "error", message })
    }
  }
}
