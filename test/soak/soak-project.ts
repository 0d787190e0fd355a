// One soak scenario's world: a real OpenCode (RALPH_LOOP_DEBUG=1, so the plugin logs its gauges)
// with one project whose loops may run for hours, the soak's model, the request log as the ledger
// needs it, samples of what the server and the plugin hold, and the checks of what is left at the end.
import { createHash } from "node:crypto"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import type { Session } from "@opencode-ai/sdk"
import type { Loop } from "../../src/loop/loop.js"
import { startHarness, type Harness, type Project } from "../harness/harness.js"
import { describeLoops } from "../harness/loop-files.js"
import type { MockRequest } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { sessionCheck, type LoopOutcome, type RequestRecord } from "./ledger.js"
import { diskUsage, lastGauges, processStats, stopGauges, type Gauges, type ProcessStats } from "./probe.js"
import { loopTask, promptInfo, SoakModel, tokensIn, TOKEN } from "./soak-model.js"

/** Limits far above what the soak needs (it must end by the model's promise, never by a limit), and a cheap check run every iteration. */
export const SOAK_SETTINGS = {
  maxIterations: 1000,
  maxRetries: 1000,
  maxCallsPerHour: 100_000,
  maxTokens: 1_000_000_000,
  maxWallMinutes: 10_080,
  backoffBaseSeconds: 1,
  noProgressThreshold: 10,
  sameErrorThreshold: 10,
  cooldownMinutes: 0.2,
  checks: [{ name: "soak-check", command: "true", kind: "test" }],
  checkAfter: "iteration",
} as const

const SUMMARY_DIR = ".opencode/sessions"
const STATE_DIR = ".opencode/ralph-loop"

export interface Sample {
  /** What the sample is counted in: the loop's iteration (long), prompts so far (wide). */
  at: number
  seconds: number
  pid: number
  stats?: ProcessStats
  /** .opencode/ralph-loop/loops: the state files; journal*.jsonl beside them; and everything under .opencode/ralph-loop. */
  stateBytes: number
  journalBytes: number
  journals: number
  stateDirBytes: number
  /** <summaryPath>: summaries, transcripts, reports. */
  summaryBytes: number
  summaryFiles: number
  /** Loops on disk not stopped, and those waiting on a timer. */
  liveLoops: number
  waitingLoops: number
  gauges?: Gauges
}

export interface EndCheck {
  orphans: string[]
  foreign: string[]
  missingFiles: string[]
  deleted: number
  sessions: number
}

export class SoakProject {
  readonly records: RequestRecord[] = []
  /** The model's requests themselves (their reply end is set when it is sent). */
  readonly requests: MockRequest[] = []
  readonly started = Date.now()

  private constructor(
    readonly harness: Harness,
    readonly project: Project,
    readonly model: SoakModel,
  ) {
    harness.mock.onRequest((request) => {
      if (request.scope !== project.scope) return
      this.requests.push(request)
      this.records.push({
        at: request.at,
        kind: request.kind,
        lastRole: request.lastRole,
        status: request.status ?? 200,
        info: promptInfo(request.lastUser),
        tokens: request.kind === "title" ? [] : tokensIn(request),
        key: createHash("sha1")
          .update(JSON.stringify(request.body.messages ?? []))
          .digest("hex"),
        ...(request.session ? { session: request.session } : {}),
        // Known once the answer is over.
        get cut() {
          return request.cut
        },
      })
    })
  }

  static async start(name: string): Promise<SoakProject> {
    const harness = await startHarness({ env: { RALPH_LOOP_DEBUG: "1" } })
    try {
      const model = new SoakModel()
      const project = await harness.project(name, { pluginOptions: SOAK_SETTINGS, script: model.script() })
      return new SoakProject(harness, project, model)
    } catch (error) {
      await harness.stop()
      throw error
    }
  }

  stop(): Promise<void> {
    return this.harness.stop()
  }

  /** The loop whose task carries `token`, as on disk now. */
  loop(token: string): Loop | undefined {
    return this.project.loops().find((l) => l.task.startsWith(`${token}:`))
  }

  /** Resolves once every loop on disk is stopped with no session left to retire. */
  async loopsEnded(count: number, timeoutMs: number): Promise<Loop[]> {
    return waitUntil(
      () => {
        const loops = this.project.loops()
        return loops.length === count && loops.every((l) => l.phase === "stopped" && l.retiring.length === 0) && loops
      },
      `${count} loops stopped`,
      timeoutMs,
      () => describeLoops(this.project.loops()),
    )
  }

  /**
   * What the plugin still holds once every loop has ended: a probe loop of one iteration runs, and
   * the gauges of its stop count, besides the probe itself, whatever the earlier loops left behind.
   * Returns the probe's outcome for the ledger and those gauges.
   */
  async probe(token = "loop-probe"): Promise<{ outcome: LoopOutcome; gauges: Gauges | undefined }> {
    const lines = () => this.harness.server.output().split("ralph-loop gauges").length - 1
    const before = lines()
    this.model.plan(token, 1)
    const session = await this.project.newSession(token)
    await this.project.command(session, "ralph", `--strategy continue ${loopTask(token)}`)
    const state = await waitUntil(
      () => {
        const loop = this.loop(token)
        return loop?.phase === "stopped" && loop
      },
      `${token} stopped`,
      120_000,
    )
    // Its decision and its stop each log a line; the stop's is the one read.
    await waitUntil(
      () => lines() >= before + 2 && stopGauges(this.harness.server.output(), state.id),
      "the probe's gauges at its stop in OpenCode's log",
      60_000,
    )
    await this.project.waitForIdle(120_000)
    return {
      outcome: { token, state, target: 1, cancelled: false },
      gauges: stopGauges(this.harness.server.output(), state.id),
    }
  }

  sample(at: number): Sample {
    const dir = this.project.dir
    const journals = journalFiles(join(dir, STATE_DIR))
    const loops = this.project.loops()
    const summaries = diskUsage(join(dir, SUMMARY_DIR))
    const pid = this.harness.server.pid
    const stats = processStats(pid)
    const gauges = lastGauges(this.harness.server.output())
    return {
      at,
      seconds: Math.round((Date.now() - this.started) / 1000),
      pid,
      ...(stats ? { stats } : {}),
      stateBytes: diskUsage(join(dir, STATE_DIR, "loops")).bytes,
      journalBytes: journals.reduce((sum, file) => sum + statSync(file).size, 0),
      journals: journals.length,
      stateDirBytes: diskUsage(join(dir, STATE_DIR)).bytes,
      summaryBytes: summaries.bytes,
      summaryFiles: summaries.files,
      liveLoops: loops.filter((l) => l.phase !== "stopped").length,
      waitingLoops: loops.filter((l) => l.phase === "waiting").length,
      ...(gauges ? { gauges } : {}),
    }
  }

  /**
   * Every session of the project. OpenCode's GET /session answers with the 100 most recently
   * updated unless given a `limit` (a query parameter the v1 SDK does not type).
   */
  async allSessions(): Promise<Session[]> {
    const url = `${this.harness.server.url}/session?directory=${encodeURIComponent(this.project.dir)}&limit=1000000`
    const response = await fetch(url)
    if (!response.ok) throw new Error(`GET /session answered ${response.status}`)
    return (await response.json()) as Session[]
  }

  /**
   * What OpenCode holds at the end. `chats` maps each plain session to its token; every loop's
   * sessions come from its state file.
   */
  async endCheck(chats: ReadonlyMap<string, string> = new Map()): Promise<EndCheck> {
    const { client } = this.project
    const listed = await this.allSessions()
    const sessions = await Promise.all(
      listed.map(async (s) => {
        const { data } = await client.session.messages({ path: { id: s.id } })
        const userTexts = (data ?? [])
          .filter((m) => m.info.role === "user")
          .map((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")).join(""))
        return { id: s.id, title: s.title, userTexts }
      }),
    )
    const owners = new Map(chats)
    const retired: string[] = []
    const known = new Set<string>(chats.keys())
    for (const loop of this.project.loops()) {
      const token = loop.task.match(TOKEN)?.[0] ?? loop.id
      owners.set(loop.sessionID, token)
      if (loop.settings.strategy === "fresh") for (const id of loop.lineage) owners.set(id, token)
      if (loop.settings.strategy === "recreate") retired.push(...loop.lineage)
      for (const id of [loop.id.replace(/-\d+$/, ""), loop.sessionID, ...loop.lineage]) known.add(id)
    }
    // Every session that ever had a message (an empty one a cancelled restart created and deleted has nothing to keep).
    for (const log of [...this.project.pastEvents, this.project.events])
      for (const event of log.of("message.updated")) known.add(String(event.properties.info?.sessionID))
    const result = sessionCheck({
      listed: sessions,
      owners,
      retired,
      known: [...known],
      hasFile: (id, file) => existsSync(join(this.project.dir, SUMMARY_DIR, id, file)),
    })
    return { ...result, sessions: sessions.length }
  }
}

function journalFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => /^journal.*\.jsonl$/.test(name))
    .map((name) => join(dir, name))
}
