// Scenario 3, the churn: faults while the wide loops run, one at a time, one every `everyMs`: an
// Esc in a random loop mid-stream and then /ralph-resume; a /cancel-ralph in a loop mid-restart; a
// burst of 429s from the model; a SIGKILL of OpenCode just after a restart created its new session,
// and OpenCode started again. Each fault waits for what marks its end (the loop paused, resumed or
// stopped, the server back) before the next one.
import { setTimeout as delay } from "node:timers/promises"
import type { Loop } from "../../src/loop/loop.js"
import { describeLoops } from "../harness/loop-files.js"
import { waitUntil } from "../harness/wait.js"
import type { FaultKind, FaultRecord } from "./ledger.js"
import { TOKEN } from "./soak-model.js"
import type { SoakProject } from "./soak-project.js"

export interface ChurnOptions {
  faults: number
  everyMs: number
  burstMs: number
  random: () => number
}

const KINDS: readonly FaultKind[] = ["esc", "cancel", "429", "kill"]

export class Churn {
  readonly faults: FaultRecord[] = []
  readonly cancelled = new Set<string>()

  constructor(
    private readonly soak: SoakProject,
    private readonly options: ChurnOptions,
    private readonly log: (line: string) => void,
  ) {}

  /** Every kind once per round, in a random order each round. */
  async run(): Promise<void> {
    const order: FaultKind[] = []
    while (order.length < this.options.faults) order.push(...shuffle(KINDS, this.options.random))
    for (const kind of order.slice(0, this.options.faults)) {
      // The schedule of the faults (one every everyMs), not a wait for something to happen.
      await delay(this.options.everyMs)
      const fault = await this.apply(kind)
      if (fault) {
        this.faults.push(fault)
        this.log(
          `fault ${this.faults.length}: ${kind}${fault.token ? ` in ${fault.token}` : ""}, ${fault.endedAt - fault.at} ms`,
        )
      } else this.log(`fault ${kind}: no loop to aim it at`)
    }
  }

  private apply(kind: FaultKind): Promise<FaultRecord | undefined> {
    switch (kind) {
      case "esc":
        return this.esc()
      case "cancel":
        return this.cancel()
      case "429":
        return this.burst()
      case "kill":
        return this.kill()
    }
  }

  /** A loop that is under way (not paused, not ended, not cancelled by the churn), chosen at random. */
  private pick(): string | undefined {
    const live = this.soak.project
      .loops()
      .map((l) => l.task.match(TOKEN)?.[0])
      .filter((token): token is string => this.live(token))
    return live[Math.floor(this.options.random() * live.length)]
  }

  /** A loop of the soak, under way and not cancelled by the churn. */
  private live(token: string | undefined): boolean {
    const loop = token ? this.soak.loop(token) : undefined
    return (
      loop !== undefined && loop.phase !== "stopped" && loop.phase !== "paused" && !this.cancelled.has(token as string)
    )
  }

  private loop(token: string): Loop {
    const loop = this.soak.loop(token)
    if (!loop) throw new Error(`no loop ${token} on disk`)
    return loop
  }

  private async esc(): Promise<FaultRecord | undefined> {
    const token = this.pick()
    if (!token) return undefined
    const { project, model } = this.soak
    const since = Date.now()
    const held = model.hold(token)
    try {
      // Its next prompt streams its first chunk and waits there: the Esc lands mid-turn.
      const streaming = await project.events.waitFor(
        (e) => e.at >= since && e.type === "message.part.delta" && /^held step/.test(String(e.properties.delta)),
        `${token}'s held reply streaming`,
        180_000,
      )
      const sessionID = String(streaming.properties.sessionID ?? this.loop(token).sessionID)
      const at = Date.now()
      await project.client.session.abort({ path: { id: sessionID } })
      await waitUntil(
        () => this.loop(token).phase === "paused",
        `${token} paused by the Esc`,
        60_000,
        () => describeLoops([this.loop(token)]),
      )
      held.open()
      await project.command(sessionID, "ralph-resume", "")
      await waitUntil(
        () => this.loop(token).phase !== "paused",
        `${token} resumed`,
        60_000,
        () => describeLoops([this.loop(token)]),
      )
      return { kind: "esc", token, at, endedAt: Date.now() }
    } finally {
      held.open()
    }
  }

  /**
   * /cancel-ralph in a loop whose restart just created its fresh session (a random loop if none does
   * within half a minute) — in the loop's session, or again in its newer one if the restart retired
   * that one meanwhile.
   */
  private async cancel(): Promise<FaultRecord | undefined> {
    const since = Date.now()
    const restarting = await this.soak.project.events
      .waitFor(
        (e) =>
          e.at >= since &&
          e.type === "session.created" &&
          this.live(String(e.properties.info?.title).match(TOKEN)?.[0]),
        "a restart's new session",
        30_000,
      )
      .catch(() => undefined)
    const token = String(restarting?.properties.info?.title ?? "").match(TOKEN)?.[0] ?? this.pick()
    if (!token) return undefined
    const at = Date.now()
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const sessionID = this.loop(token).sessionID
      await this.soak.project
        .command(sessionID, "cancel-ralph", "")
        .catch((error: unknown) => this.log(`/cancel-ralph in ${sessionID}: ${String(error)}`))
      const stopped = await waitUntil(() => this.loop(token).phase === "stopped", `${token} cancelled`, 10_000).catch(
        () => false,
      )
      if (stopped) {
        this.cancelled.add(token)
        return { kind: "cancel", token, at, endedAt: Date.now() }
      }
    }
    throw new Error(`/cancel-ralph did not stop ${token}: ${describeLoops([this.loop(token)])}`)
  }

  private async burst(): Promise<FaultRecord> {
    const at = Date.now()
    this.soak.model.burst(this.options.burstMs)
    // The burst lasts burstMs by the model's clock; the fault is over when it is.
    await delay(this.options.burstMs)
    return { kind: "429", at, endedAt: Date.now() }
  }

  /**
   * SIGKILL at the most delicate moment the churn can see: just after a restart of some loop created
   * its fresh session (before the loop has moved in), or at once if none comes within a minute.
   */
  private async kill(): Promise<FaultRecord> {
    const since = Date.now()
    await this.soak.project.events
      .waitFor(
        (e) => e.at >= since && e.type === "session.created" && /^Ralph \d/.test(String(e.properties.info?.title)),
        "a restart's new session",
        60_000,
      )
      .catch(() => undefined)
    const at = Date.now()
    await this.soak.harness.restartServer("SIGKILL")
    return { kind: "kill", at, endedAt: Date.now() }
  }
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j] as T, out[i] as T]
  }
  return out
}
