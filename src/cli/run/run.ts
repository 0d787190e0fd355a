import type { HostServer } from "../../host/server-port.js"
import { OpencodeServer } from "../../opencode/server.js"
import { limitsText } from "../../loop/limits.js"
import type { SavedLoop } from "../../store/saved-loops.js"
import { projectFolderProblem } from "../args.js"
import { packageInfo } from "../../listings/package-info.js"
import { parseRunArgs, type RunArgs } from "./args.js"
import { RUN_HELP } from "./help.js"
import { RUN_EVENTS_VERSION } from "./events.js"
import { exitCode } from "./exit-code.js"
import { JournalTail } from "./follow.js"
import { LoopFollow } from "./follow-run.js"
import { StartCancelled, type Host } from "./host.js"
import { holdAt } from "./hold-point.js"
import { pluginInstalled } from "./installed.js"
import { hostFor, runRequest } from "./preflight.js"
import { RunOutput, type RunIO } from "./run-output.js"
import { RunSessions } from "./run-sessions.js"
import { PermissionDesk } from "./permissions.js"
import { nothingSentDetail, signalMeaning, type HoldPoint, type RunPhase } from "./phases.js"
import { ServerEvents } from "./server-events.js"

/** SIGHUP (a closed terminal, a dropped ssh) is an interrupt like the others. */
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"]

export type { RunIO }

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
  private readonly sessions = new RunSessions()
  private interrupt: NodeJS.Signals | undefined
  /** Where the run is (phases.ts): what a signal means there. */
  private phase: RunPhase = "preflight"
  private resuming = false
  /** Aborted by the first signal: a server still booting is stopped at once. */
  private readonly booting = new AbortController()
  private follower: LoopFollow | undefined
  private readonly output: RunOutput
  private readonly emit: RunOutput["emit"]

  constructor(
    private readonly args: RunArgs,
    private readonly io: RunIO,
  ) {
    this.output = new RunOutput(args, io, () => this.loopID)
    this.emit = this.output.emit
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
      this.follower?.poke()
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
    if (problem) return this.output.failed(problem, { kind: "usage" })
    const installed = pluginInstalled(args.project, io.env, packageInfo().dir)
    if (!installed.ok) return this.output.failed(installed.problem)
    const request = await runRequest(args)
    if ("refused" in request) return this.output.failed(request.refused, { kind: "usage" })
    const { resuming, memory } = request
    if (resuming) this.loopID = resuming.loop.id
    this.resuming = resuming !== undefined
    const early = await this.passed("preflight.done")
    if (early !== undefined) return early

    // From here on, what the plugin journals is the run's.
    const tail = await JournalTail.fromEnd(args.project)
    const client = await this.boot()
    if (typeof client === "number") return client
    const started = await this.startOrResume(client, resuming)
    if (typeof started === "number") return started
    this.phase = "following"
    await this.hold("command.sent")
    const { host, events, loopID } = this
    if (!host || !events || loopID === null) throw new Error("ralph-loop run: followed a loop before it started")
    const interrupt = () => this.interrupt
    const run = { args, output: this.output, host, events, sessions: this.sessions, loopID, interrupt }
    this.follower = new LoopFollow(run, tail, started.commandSettled, resuming !== undefined, memory)
    return this.follower.follow()
  }

  /** The server up and listened to, with the plugin's /ralph: its client, else the run's end. */
  private async boot(): Promise<HostServer | number> {
    const { args } = this
    this.phase = "booting"
    try {
      this.host = await hostFor(args, this.io.env, this.booting.signal)
    } catch (error) {
      if (error instanceof StartCancelled) {
        const detail = nothingSentDetail("booting", this.interrupt ?? "a signal", this.resuming, !!args.attach)
        return this.output.end({ kind: "interrupted" }, "interrupted", detail)
      }
      return this.output.failed(error instanceof Error ? error.message : String(error))
    }
    const host = this.host
    this.phase = "connecting"
    const up = await this.passed("host.ready")
    if (up !== undefined) return up
    const pid = host.pid ?? null
    this.emit({ type: "host", version: RUN_EVENTS_VERSION, url: host.url, started: host.started, pid })
    const client: HostServer = new OpencodeServer(host.url, args.project)
    if (!(await client.commandNames()).includes("ralph")) {
      return this.output.failed(
        `OpenCode did not load the ralph-loop plugin for ${args.project} (a config file lists it, but it has no ` +
          "/ralph command; `ralph-loop doctor` and OpenCode's log say why)",
      )
    }
    const checked = await this.passed("plugin.checked")
    if (checked !== undefined) return checked
    const belongs = (id: string) => this.sessions.belongs(client, id, host.started)
    const desk = new PermissionDesk(client, args.autoApprove, belongs, this.emit)
    const ours = (id: string) => this.sessions.has(id)
    this.events = new ServerEvents(client, desk, args.verbose, ours, this.emit, () => host.alive())
    await this.events.start()
    const subscribed = await this.passed("events.subscribed")
    return subscribed ?? client
  }

  /** A test's hold at `point` (hold-point.ts); nothing else. */
  private hold(point: HoldPoint): Promise<void> {
    return holdAt(point, this.io.env, this.args.project, this.booting.signal)
  }

  /**
   * The run passed `point`: the run's end if a signal came and, in this phase, means that nothing
   * is sent after it (phases.ts); else undefined, and the run goes on (the follow obeys the signal).
   */
  private async passed(point: HoldPoint): Promise<number | undefined> {
    await this.hold(point)
    const signal = this.interrupt
    if (!signal || signalMeaning(this.phase, this.resuming && this.host?.started === true) !== "nothing-sent") {
      return undefined
    }
    const detail = nothingSentDetail(this.phase, signal, this.resuming, this.args.attach !== undefined)
    return this.output.end({ kind: "interrupted" }, "interrupted", detail)
  }

  /**
   * A new loop: the run's /ralph, whose answer settles when its first turn has ended (undefined: no
   * failure). A resumed one: nothing to send yet. A number: the run's end. (The answer is wrapped, so
   * that the async function does not wait for it.)
   */
  private async startOrResume(
    client: HostServer,
    resuming: SavedLoop | undefined,
  ): Promise<{ commandSettled?: Promise<string | undefined> } | number> {
    const { args } = this
    if (resuming) {
      const loop = resuming.loop
      this.sessions.note(loop)
      // A server this run started takes the loop back at its start (its "recovered" line is the start's);
      // one attached to had it already. The follow resumes it (follow-run.ts).
      if (this.host?.started) return {}
      const task = loop.task.split("\n")[0] ?? ""
      const limits = limitsText(loop.settings, loop.plan !== undefined)
      this.emit({ type: "started", task, limits, session: loop.sessionID, resumed: true, iteration: loop.iteration })
      return {}
    }
    this.phase = "creating-session"
    const created = await client.createSession("ralph-loop run")
    if (!("id" in created)) {
      return this.output.failed(`OpenCode could not create a session: ${JSON.stringify(created.error)}`)
    }
    // A signal up to here: the session stays empty, and /ralph is not sent.
    const empty = await this.passed("session.created")
    if (empty !== undefined) return empty
    this.loopID = created.id
    this.sessions.add(created.id)
    // The command answers when the first turn has ended; the loop is followed meanwhile.
    const commandSettled = client.runCommand(created.id, "ralph", args.ralph, args.model)
    return { commandSettled }
  }
}
