// An instance's heartbeat in its project, every HEARTBEAT_MS: its presence file (for the loops it
// owns: src/owner/presence-files.ts) and a look at the project's lease (src/owner/project-lease.ts).
// `gained` runs when this instance takes the lease (the project-wide work starts here: the worktree
// watch, the parallel run's catch-up), `holding` at each beat while it holds it. Off the event path;
// nothing throws out.
import { HEARTBEAT_MS, type Identity } from "./heartbeat.js"
import { forgetOldPresence, removePresence, writePresence } from "./presence-files.js"
import { ProjectLease } from "./project-lease.js"

export interface BeatHooks {
  gained(): void
  holding(): void
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void
}

export class ProjectBeat {
  readonly lease: ProjectLease
  private timer: ReturnType<typeof setInterval> | undefined
  private beating: Promise<void> | undefined
  private failing = false
  /** The last beat found no state folder: a client's request may have just made it. */
  private noFolder = false
  private disposed = false
  private resolveReady: () => void = () => undefined
  /** Resolves after the first beat: until then nobody here knows whether this instance holds the lease. */
  readonly ready = new Promise<void>((resolve) => (this.resolveReady = resolve))

  constructor(
    private readonly directory: string,
    private readonly me: Identity,
    private readonly hooks: BeatHooks,
    private readonly now: () => number = Date.now,
  ) {
    this.lease = new ProjectLease(directory, { ...me, what: "OpenCode" }, now)
  }

  /** Beats now, then every HEARTBEAT_MS. */
  start(): void {
    void this.beat().finally(() => this.resolveReady())
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS)
    this.timer.unref?.()
  }

  holds(): boolean {
    return !this.disposed && this.lease.holds()
  }

  /**
   * Whether this instance holds the lease, for a request that waits on the answer: after the first
   * beat, and — when that found no state folder (the request's client made it since) — after one now.
   */
  async holdsNow(): Promise<boolean> {
    await this.ready
    if (this.noFolder) await this.beat()
    return this.holds()
  }

  /** One beat now (overlapping calls share it). */
  beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => (this.beating = undefined))
    return this.beating
  }

  /** Stops beating: the lease is released and the presence file removed, so another process takes over at once. */
  async dispose(): Promise<void> {
    this.disposed = true
    clearInterval(this.timer)
    await this.beating
    await this.lease.release()
    await removePresence(this.directory, this.me.boot).catch(() => undefined)
  }

  private async beatOnce(): Promise<void> {
    if (this.disposed) return
    try {
      const had = this.lease.holds()
      const view = await this.lease.tick()
      this.noFolder = view.kind === "no-folder"
      if (this.disposed) return
      if (view.kind !== "no-folder")
        await writePresence(this.directory, { ...this.me, heartbeat: this.now(), what: "OpenCode" })
      if (view.kind === "mine" && !had) {
        const what = "this OpenCode holds the project's lease (worktree watch, merges, parallel catch-up)"
        this.hooks.log("info", what, { directory: this.directory })
        this.hooks.gained()
        await forgetOldPresence(this.directory, this.now())
      } else if (view.kind === "mine") this.hooks.holding()
      if (had && view.kind !== "mine") {
        const holder = view.kind === "held" ? view.holder : undefined
        this.hooks.log("info", "the project's lease is held by another process now", { holder })
      }
      this.failing = false
    } catch (error) {
      if (!this.failing) this.hooks.log("warn", `the project's lease could not be looked at: ${String(error)}`)
      this.failing = true
    }
  }
}
