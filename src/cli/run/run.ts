// `ralph-loop run`: a Ralph loop without a person at a terminal. Starts `opencode serve` in the
// project (or attaches to a server), starts the loop with the plugin's own /ralph, follows it
// through its files across every session it recreates, answers permission requests so nothing
// hangs, and exits with a code per class of ending (exit-code.ts) once the loop ends.
import { existsSync } from "node:fs"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import { limitsText } from "../../loop/limits.js"
import { totalUsage, type Loop } from "../../loop/loop.js"
import { reportFile } from "../../store/report.js"
import type { SavedLoop } from "../../store/saved-loops.js"
import { parseRalphArgs } from "../../commands/ralph-args.js"
import { sendControl } from "../../control/client.js"
import { projectFolderProblem } from "../args.js"
import { findOpencode } from "../opencode.js"
import { packageInfo } from "../../listings/package-info.js"
import { parseRunArgs, type RunArgs } from "./args.js"
import { PARALLEL_REFUSED, ralphError, RUN_HELP, WORKTREE_REFUSED } from "./help.js"
import { runEventSchema, RUN_EVENTS_VERSION, type RunEvent, type RunEventBody } from "./events.js"
import { exitCode, type Ending } from "./exit-code.js"
import { endSteps, JournalTail, readLoopState, stateAsOf, usageByLastDecision } from "./follow.js"
import { attachHost, HostError, startHost, StartCancelled, type Host } from "./host.js"
import { pluginInstalled } from "./installed.js"
import { freshMemory, resumedMemory, translate, type FollowMemory } from "./journal-events.js"
import { loopToResume, serverEnv, stateNow } from "./loop-files.js"
import { storyBranchMissing } from "./story-branch-check.js"
import { runLine } from "./lines.js"
import { PermissionDesk } from "./permissions.js"
import { ServerEvents } from "./server-events.js"

/** How long the end of a loop may take to be complete on disk (old sessions retired, report written). */
const END_STEPS_MS = 30_000
/** How often the loop's files are looked at. */
const FOLLOW_MS = 150
/** An interrupt during a rollback: how long the restore may still take before the server is stopped all the same. */
const ROLLBACK_MS = 120_000
/** SIGHUP (a closed terminal, a dropped ssh) is an interrupt like the others. */
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"]

export interface RunIO {
  out: (line: string) => void
  fail: (line: string) => void
  env: NodeJS.ProcessEnv
  cwd: string
}

export { RUN_HELP }

export async function run(argv: readonly string[], io: RunIO): Promise<number> {
  const parsed = parseRunArgs(argv, io.cwd)
  if ("error" in parsed) {
    io.fail(`ralph-loop run: ${parsed.error}\n\n${RUN_HELP}`)
    return exitCode({ kind: "usage" })
  }
  if (parsed.help) {
    io.out(RUN_HELP)
    return 0
  }
  return new Runner(parsed, io).run()
}

class Runner {
  private loopID: string | null = null
  private host: Host | undefined
  private events: ServerEvents | undefined
  /** The sessions of the run's loop (its current one, earlier ones, its review's). */
  private readonly sessions = new Set<string>()
  private readonly parents = new Map<string, string | undefined>()
  private interrupt: NodeJS.Signals | undefined
  /** Aborted by the first signal: a server still booting is stopped at once. */
  private readonly booting = new AbortController()
  private poke: () => void = () => undefined

  constructor(
    private readonly args: RunArgs,
    private readonly io: RunIO,
  ) {}

  private emit = (body: RunEventBody): void => {
    const event = { ...body, at: new Date().toISOString(), loop: this.loopID } as RunEvent
    if (event.type === "text" && !this.args.verbose) return
    this.io.out(this.args.json ? JSON.stringify(runEventSchema.parse(event)) : runLine(event))
  }

  /** The last event: the run's end, with the exit code its class has. */
  private end(ending: Ending, outcome: string, detail: string | null, loop?: Loop): number {
    const code = exitCode(ending)
    const usage = loop ? totalUsage(loop) : { tokens: 0, cost: 0 }
    const report = loop ? reportFile(this.args.project, loop) : undefined
    this.emit({
      type: "ended",
      outcome,
      detail,
      exitCode: code,
      iteration: loop?.iteration ?? 0,
      tokens: usage.tokens,
      cost: usage.cost,
      report: report && existsSync(report) ? report : null,
    })
    return code
  }

  private failed(message: string, ending: Ending = { kind: "runner-failure" }, loop?: Loop): number {
    if (this.args.json) this.emit({ type: "error", message })
    this.io.fail(`ralph-loop run: ${message}`)
    return this.end(ending, ending.kind, message, loop)
  }

  async run(): Promise<number> {
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.interrupt) {
        // A second one: stop now, whatever the loop is doing (its state is on disk at every step).
        void (this.host?.stop() ?? Promise.resolve()).finally(() => process.exit(exitCode({ kind: "interrupted" })))
        return
      }
      this.interrupt = signal
      this.booting.abort()
      this.poke()
    }
    for (const signal of SIGNALS) process.on(signal, onSignal)
    try {
      return await this.runHosted()
    } finally {
      this.events?.stop()
      await this.host?.stop()
      for (const signal of SIGNALS) process.off(signal, onSignal)
    }
  }

  private async runHosted(): Promise<number> {
    const { args, io } = this
    const problem = projectFolderProblem(args.project)
    if (problem) return this.failed(problem, { kind: "usage" })
    const pkg = packageInfo()
    const installed = pluginInstalled(args.project, io.env, pkg.dir)
    if (!installed.ok) return this.failed(installed.problem)

    let resuming: SavedLoop | undefined
    let memory = freshMemory()
    if (args.resume !== undefined) {
      const pick = await loopToResume(args.project, args.resume)
      if (typeof pick === "string") return this.failed(pick, { kind: "usage" })
      resuming = pick
      this.loopID = pick.loop.id
      // Read before the loop can go on: its next iteration's tokens and cost count from here, not from 0.
      memory = resumedMemory(pick.loop, await usageByLastDecision(args.project, pick.loop))
    } else {
      const ralph = parseRalphArgs(args.ralph)
      if (!ralph.ok) return this.failed(`/ralph ${args.ralph}: ${ralphError(ralph.error)}`, { kind: "usage" })
      if (!ralph.task && ralph.prd === undefined)
        return this.failed("/ralph needs a task (or --prd [PATH])", { kind: "usage" })
      const unsupported =
        ralph.parallel !== undefined ? PARALLEL_REFUSED : ralph.worktree ? WORKTREE_REFUSED : undefined
      if (unsupported) return this.failed(unsupported, { kind: "usage" })
    }

    // From here on, what the plugin journals is the run's.
    const tail = await JournalTail.fromEnd(args.project)
    try {
      this.host = await this.startHost()
    } catch (error) {
      if (error instanceof StartCancelled)
        return this.end(
          { kind: "interrupted" },
          "interrupted",
          `${this.interrupt ?? "a signal"} while ${args.attach ? "waiting for the server" : "OpenCode booted"}; ` +
            `no loop was started or resumed`,
        )
      return this.failed(error instanceof Error ? error.message : String(error))
    }
    if (this.interrupt)
      return this.end({ kind: "interrupted" }, "interrupted", `${this.interrupt} before the loop started`)
    this.emit({
      type: "host",
      version: RUN_EVENTS_VERSION,
      url: this.host.url,
      started: this.host.started,
      pid: this.host.pid ?? null,
    })
    const client = createOpencodeClient({ baseUrl: this.host.url, directory: args.project })
    const commands = await client.command.list()
    if (!(commands.data ?? []).some((c) => c.name === "ralph"))
      return this.failed(
        `OpenCode did not load the ralph-loop plugin for ${args.project} (a config file lists it, but it has no ` +
          `/ralph command; \`ralph-loop doctor\` and OpenCode's log say why)`,
      )

    const desk = new PermissionDesk(client, args.autoApprove, (id) => this.belongs(client, id), this.emit)
    const host = this.host
    this.events = new ServerEvents(
      client,
      desk,
      args.verbose,
      (id) => this.sessions.has(id),
      this.emit,
      () => host.alive(),
    )
    await this.events.start()

    let commandSettled: Promise<string | undefined> | undefined
    if (resuming) {
      this.noteSessions(resuming.loop)
      // A server this run started takes the loop back at its start (its "recovered" line is the start's);
      // one attached to had it already. The follow resumes it (follow.ts).
      if (!this.host.started)
        this.emit({
          type: "started",
          task: resuming.loop.task.split("\n")[0] ?? "",
          limits: limitsText(resuming.loop.settings, resuming.loop.plan !== undefined),
          session: resuming.loop.sessionID,
          resumed: true,
          iteration: resuming.loop.iteration,
        })
    } else {
      const created = await client.session.create({ title: "ralph-loop run" })
      if (!created.data) return this.failed(`OpenCode could not create a session: ${JSON.stringify(created.error)}`)
      this.loopID = created.data.id
      this.sessions.add(created.data.id)
      // session.command answers when the first turn has ended; the loop is followed meanwhile.
      commandSettled = client.session
        .command({
          sessionID: created.data.id,
          command: "ralph",
          arguments: args.ralph,
          ...(args.model ? { model: args.model } : {}),
        })
        .then(
          ({ error }) => (error ? JSON.stringify(error) : undefined),
          (error: unknown) => String(error),
        )
    }
    return this.follow(tail, commandSettled, resuming !== undefined, memory)
  }

  private async startHost(): Promise<Host> {
    const { args, io } = this
    const signal = this.booting.signal
    if (args.attach) return attachHost(args.attach, args.project, { signal })
    const bin = args.opencode ?? findOpencode(io.env, packageInfo().dir)
    if (!bin)
      throw new HostError(
        "OpenCode (the `opencode` command) is not on PATH: install it (https://opencode.ai), or give its path " +
          "with --opencode PATH",
      )
    if (!existsSync(bin)) throw new HostError(`--opencode ${bin}: no such file`)
    return startHost({ bin, project: args.project, env: serverEnv(io.env, args.model), signal })
  }

  /**
   * Follows the loop until it ends, the server dies or a signal comes. The runner acts only on what
   * the plugin journals after its own request — its /ralph, or for --resume its resume, sent once
   * the server has taken the loop back — and on a pause by its cause (journal-events.ts).
   */
  private async follow(
    tail: JournalTail,
    commandSettled: Promise<string | undefined> | undefined,
    resumed: boolean,
    memoryBefore: FollowMemory,
  ): Promise<number> {
    const host = this.host as Host
    const project = this.args.project
    let gone: string | undefined
    void host.exited.then((how) => {
      gone = how
      this.poke()
    })
    let commandError: string | undefined
    let commandDone = commandSettled === undefined
    void commandSettled?.then((error) => {
      commandError = error
      commandDone = true
      this.poke()
    })
    let memory = memoryBefore
    let started = resumed
    /** A new loop's every line follows the runner's /ralph; a resumed one's, once it sent its resume. */
    let requested = !resumed
    /** A server the runner started takes the loop back at its start: its "recovered" line says it did. */
    let recovered = !host.started
    const recoveryDeadline = Date.now() + END_STEPS_MS
    let resumeWanted = false
    let rollbackUnderWay = false
    let lookedAgain = false
    let interruptAsked = false
    let interruptDeadline: number | undefined
    let loop: Loop | undefined
    let lastAt = 0
    const stopped = (detail: string) => this.end({ kind: "interrupted" }, "interrupted", detail, loop)
    for (;;) {
      const entries = (await tail.read()).filter((e) => e.loop.id === this.loopID)
      for (const entry of entries) {
        lastAt = Date.parse(entry.at)
        const saved = await stateAsOf(() => readLoopState(project, entry.loop.id), lastAt)
        if (saved) {
          loop = saved.loop
          this.noteSessions(saved.loop)
        }
        if (entry.event === "started" || entry.event === "recovered") started = true
        if (entry.event === "recovered") recovered = true
        if (entry.event === "paused") rollbackUnderWay = entry.loop.pauseCause === "rollback"
        else if (entry.event === "rolled-back" || entry.event === "resumed" || entry.event.startsWith("stopped"))
          rollbackUnderWay = false
        const translated = translate(entry, stateNow(saved?.loop), memory, resumed, requested)
        memory = translated.memory
        for (const event of translated.events) this.emit(event)
        if (translated.resume) resumeWanted = true
        if (translated.end) return this.ended(entry.loop.id, translated.end, loop)
      }
      if (gone !== undefined) {
        const server = host.started ? "the OpenCode server" : `the OpenCode server at ${host.url}`
        return this.failed(
          `${server} ${gone} while the loop ran; \`ralph-loop run ` +
            `--resume${this.loopID ? ` ${this.loopID}` : ""}\` takes the loop back`,
          { kind: "runner-failure" },
          loop,
        )
      }
      if (this.interrupt && !interruptAsked) {
        interruptAsked = true
        const refused = await this.interruptLoop(this.interrupt, started)
        if (refused !== undefined) return stopped(refused)
        // The loop's paused (or stopped) line ends the follow, once its state is on disk.
        interruptDeadline = Date.now() + END_STEPS_MS
        continue
      }
      if (interruptDeadline !== undefined) {
        // A loop paused already (a person, a rollback) writes no new line: its state says so — once a
        // rollback under way has written the work tree back (the server is not stopped under it).
        const now = (await readLoopState(project, this.loopID as string))?.loop ?? loop
        if (now?.phase === "paused" && now.pauseCause !== "interrupt" && !rollbackUnderWay)
          return stopped(`${now.detail ?? "paused"}; \`ralph-loop run --resume ${now.id}\` goes on`)
        if (Date.now() > interruptDeadline + (rollbackUnderWay ? ROLLBACK_MS : 0))
          return stopped("the plugin took the request but its state did not say so in time")
      } else if (!requested && recovered) {
        const refused = await this.resumeLoop(lastAt)
        if (refused !== undefined) return refused
        requested = true
        continue
      } else if (!requested && Date.now() > recoveryDeadline) {
        return this.failed(
          `OpenCode did not take loop ${this.loopID} back at its start (no "recovered" line in its journal ` +
            `within ${END_STEPS_MS / 1000} s)`,
        )
      } else if (resumeWanted) {
        resumeWanted = false
        const refused = await this.resumeLoop(lastAt)
        if (refused !== undefined) return refused
      }
      if (commandDone && !started) {
        // The first turn is over and no loop started: /ralph refused (its toast says why), or the command
        // failed. Its started line may have landed since this look: one more look, through the top.
        if (!lookedAgain) {
          lookedAgain = true
          continue
        }
        if (commandError) return this.failed(`/ralph failed in OpenCode: ${commandError}`)
        const toast = [...(this.events?.toasts ?? [])]
          .reverse()
          .find((t) => /^Ralph · (not started|no task)/.test(t.title))
        return this.failed(toast ? toast.message : "/ralph started no loop", { kind: "usage" })
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FOLLOW_MS)
        this.poke = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }

  /** The loop's end line: its last steps, then the run's end (a --story loop's branch checked). */
  private async ended(
    loopID: string,
    end: NonNullable<ReturnType<typeof translate>["end"]>,
    seen: Loop | undefined,
  ): Promise<number> {
    const loop = (await endSteps(this.args.project, loopID, end.kind, END_STEPS_MS, FOLLOW_MS)) ?? seen
    await this.flushTexts(loop)
    const detail = loop?.detail ?? null
    if (end.kind === "paused" && this.interrupt)
      return this.end(
        { kind: "interrupted" },
        "interrupted",
        `${detail ?? "paused"}; \`ralph-loop run --resume ${loopID}\` goes on`,
        loop,
      )
    if (end.kind === "paused")
      return this.end(
        { kind: "paused" },
        "paused",
        `${detail ?? "paused"}; nobody is there to resume it: \`ralph-loop run --resume ${loopID}\` goes on`,
        loop,
      )
    const missing = loop ? await storyBranchMissing(this.args.project, loop) : undefined
    if (missing) return this.failed(missing, { kind: "story-not-committed" }, loop)
    return this.end(end, end.reason, detail, loop)
  }

  /**
   * --resume: the loop goes on now (paused: an interrupt, a person's pause, resumeOnStart "ask"; or
   * waiting), through the control channel. Undefined when it does (or needed nothing); else the run's end.
   */
  private async resumeLoop(asOf: number): Promise<number | undefined> {
    const project = this.args.project
    const loopID = this.loopID as string
    const needs = (loop: Loop | undefined) => loop?.phase === "paused" || loop?.phase === "waiting"
    if (!needs((await stateAsOf(() => readLoopState(project, loopID), asOf))?.loop)) return undefined
    const outcome = await sendControl(project, { verb: "resume", loop: loopID, from: "ralph-loop run --resume" })
    if (outcome.status === "done") return undefined
    // Went on meanwhile by itself (a wait ended): nothing to do.
    if (outcome.status === "refused" && !needs((await readLoopState(project, loopID))?.loop)) return undefined
    return this.failed(
      `the loop could not be resumed: ${outcome.message}`,
      outcome.status === "refused" ? { kind: "usage" } : { kind: "runner-failure" },
    )
  }

  /**
   * SIGINT/SIGTERM: the loop is paused (or cancelled) through the plugin's control channel — no
   * model turn; the turn under way is cut off when the server stops, and recovery takes it up at
   * --resume. Undefined when the plugin did it; else what happened instead (the run then ends anyway).
   */
  private async interruptLoop(signal: NodeJS.Signals, started: boolean): Promise<string | undefined> {
    const action = this.args.onInterrupt
    this.emit({ type: "interrupt", signal, action })
    if (!this.loopID || !started) return `${signal} before the loop started`
    const outcome = await sendControl(this.args.project, {
      verb: action,
      loop: this.loopID,
      from: `ralph-loop run (${signal})`,
      ...(action === "pause" ? { cause: "interrupt" as const } : {}),
    })
    if (outcome.status === "done") return undefined
    const said =
      `the loop could not be ${action === "pause" ? "paused" : "cancelled"} (${outcome.message}); its ` +
      `state is on disk as the plugin last wrote it`
    this.emit({ type: "error", message: said })
    return said
  }

  /** The model's last texts before the end line (--verbose); a failure to read them costs only those lines. */
  private async flushTexts(loop: Loop | undefined): Promise<void> {
    if (!loop) return
    try {
      await this.events?.flush([loop.sessionID, ...(loop.review?.session ? [loop.review.session] : [])])
    } catch (error) {
      this.emit({
        type: "error",
        message: `reading the model's last texts: ${error instanceof Error ? error.message : String(error)}`,
      })
    }
  }

  private noteSessions(loop: Loop): void {
    for (const id of [loop.sessionID, ...loop.lineage, ...(loop.review?.session ? [loop.review.session] : [])])
      this.sessions.add(id)
  }

  /**
   * A session is the run's: one of its loop's, or a subagent's under one of those. A server the runner started holds
   * only the run's.
   */
  private async belongs(client: OpencodeClient, sessionID: string): Promise<boolean> {
    if (this.host?.started) return true
    for (let id: string | undefined = sessionID, depth = 0; id && depth < 8; depth += 1) {
      if (this.sessions.has(id)) return true
      if (!this.parents.has(id)) this.parents.set(id, (await client.session.get({ sessionID: id })).data?.parentID)
      id = this.parents.get(id)
    }
    return false
  }
}
