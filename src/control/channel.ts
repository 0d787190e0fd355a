// The control channel's server side, in the plugin: it watches the control folder (client.ts writes
// the requests) and acts on the requests that are this instance's. With several OpenCode processes
// on one project, each reads a request and asks the route rule (route.ts) whether it is its own: the
// loop's owner takes a loop's request, the lease holder the project's; the others leave the file
// alone. A request is first renamed `<id>.<taker>.taken.json` — from then on its client cannot
// withdraw it — then acted on; its result is written before the taken file is removed, so a restart
// never acts twice: a taken file whose taker no longer runs, without a result, is answered
// "interrupted" (by the lease holder), not acted on again. A request written while OpenCode was not
// running is acted on at the next start. Requests are answered side by side: a status at once, the
// acts on one loop one at a time, in the order of their names (route.ts says what waits for what).
// Everything runs off the event path (fs.watch callbacks only schedule a scan) and nothing throws out.
// In OpenCode's Bun (1.3.14) fs.watch on Linux may hold an event back until the next one comes, so a
// request could wait for hours: the folder is also looked at every RESCAN_MS (one readdir).
import { watch, type FSWatcher } from "node:fs"
import { lstat, mkdir, readdir, rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { OPENCODE_DIR, STATE_DIR } from "../project/own-files.js"
import { publish } from "./publish.js"
import { readRegularFile } from "../files/regular-file.js"
import {
  CONTROL_DIR,
  MAX_REQUEST_BYTES,
  parseRequest,
  requestName,
  resultName,
  takenName,
  waitingRequests,
  type ControlRequest,
  type ControlResult,
} from "./request.js"
import { answerLeftovers } from "./leftovers.js"
import type { Route } from "./route.js"

export type ControlAct = (request: ControlRequest) => Promise<Omit<ControlResult, "id">>
/** Whether this instance takes the request (undefined: it could not be read — the project's to refuse). */
export type ControlRoute = (request: ControlRequest | undefined) => Promise<Route>

export interface ChannelOptions {
  route?: ControlRoute
  /** This instance's boot id, in the names of the requests it takes. */
  taker?: string
  /**
   * Which taken files, left by takers that no longer run, this instance answers "interrupted"
   * (undefined: none now). Without it: every one found at the first scan (one process alone).
   */
  orphans?: () => Promise<((taker: string | undefined) => boolean) | undefined>
}

/** Alone on a project: every request is this instance's, one at a time. */
const TAKE_ALL: ControlRoute = async () => ({ take: true, queue: "all" })
export type ControlLog = (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void

/** How often the folder is looked at besides fs.watch's events. */
const RESCAN_MS = 1_000

/** `fs.watch`'s shape, so a test can give a watcher that reports a burst once, as Bun's does. */
export type WatchFolder = (folder: string, listener: () => void) => FSWatcher

export class ControlChannel {
  private readonly folder: string
  private watcher: FSWatcher | undefined
  /** The folder watched now. */
  private watching: string | undefined
  private timer: ReturnType<typeof setInterval> | undefined
  private scanning: Promise<void> | undefined
  private again = false
  private arming = 0
  /** Until the control folder was there once: one that disappears later is on its way out, never made again. */
  private mayMake = true
  private started = false
  private disposed = false
  /** Names that are not regular files: said once, then left alone. */
  private readonly ignored = new Set<string>()
  /** Requests left to another process: said once. */
  private readonly left = new Set<string>()
  /** Requests taken and not answered yet, by id. */
  private readonly inflight = new Map<string, Promise<void>>()
  /** The last act waiting in each queue (route.ts). */
  private readonly queues = new Map<string, Promise<void>>()
  private readonly route: ControlRoute
  private readonly taker: string | undefined

  constructor(
    private readonly directory: string,
    private readonly act: ControlAct,
    private readonly log: ControlLog,
    private readonly now: () => number = Date.now,
    private readonly watchFolder: WatchFolder = (folder, listener) => watch(folder, listener),
    private readonly options: ChannelOptions = {},
  ) {
    this.folder = join(directory, CONTROL_DIR)
    this.route = options.route ?? TAKE_ALL
    this.taker = options.taker
  }

  /** Watches the folder (or, until it exists, the nearest folder on the way to it) and scans it once. */
  start(): void {
    this.arm()
    this.timer = setInterval(() => (this.watching === this.folder ? this.scan() : this.arm()), RESCAN_MS)
    this.timer.unref?.()
  }

  dispose(): void {
    this.disposed = true
    clearInterval(this.timer)
    this.watcher?.close()
    this.watcher = undefined
  }

  /** Resolves once the requests seen so far are acted on (tests, dispose). */
  async settled(): Promise<void> {
    while (this.scanning || this.inflight.size > 0) await Promise.all([this.scanning, ...this.inflight.values()])
  }

  private arm(): void {
    if (this.disposed) return
    this.watcher?.close()
    this.watcher = undefined
    this.watching = undefined
    // Of two arms under way, the later one watches.
    const arming = ++this.arming
    void this.nearestFolder().then((folder) => {
      if (this.disposed || !folder || arming !== this.arming) return
      try {
        // Until the control folder exists, any change on the way to it is a reason to look again.
        this.watcher = this.watchFolder(folder, () => (folder === this.folder ? this.scan() : this.arm()))
        this.watcher.on("error", () => this.arm())
        this.watching = folder
      } catch (error) {
        this.log("warn", `the control folder cannot be watched: ${String(error)}`)
        return
      }
      if (folder === this.folder) this.scan()
      // A folder made on the way while this one was being found: look again, now that changes are heard.
      else void this.nearestFolder().then((now) => now !== folder && this.arm())
    })
  }

  /**
   * The control folder if it is a folder (never a link), else the nearest existing one above it.
   * Once the plugin's own folder is there, the control folder is made in it: watching the plugin's
   * folder instead would mean a new watch at each of its state writes. Only while it was never there:
   * a control folder that vanishes later is being removed with its tree (`git worktree remove` of a worktree loop,
   * whose instance still runs), and making it again would leave that removal "Directory not empty".
   * A client's next request makes it again.
   */
  private async nearestFolder(): Promise<string | undefined> {
    const state = join(this.directory, STATE_DIR)
    for (const folder of [this.folder, state, join(this.directory, OPENCODE_DIR), this.directory]) {
      const stat = await lstat(folder).catch(() => undefined)
      if (stat?.isDirectory() && folder === this.folder) this.mayMake = false
      if (stat?.isDirectory()) return folder === state && (await this.makeFolder()) ? this.nearestFolder() : folder
      if (stat && folder === this.folder)
        this.log("warn", `${CONTROL_DIR} is not a folder: control requests are not read`)
      if (stat) return undefined
    }
    return undefined
  }

  /** Whether the control folder is there now (made here or meanwhile by a client). */
  private makeFolder(): Promise<boolean> {
    if (!this.mayMake) return Promise.resolve(false)
    this.mayMake = false
    return mkdir(this.folder).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === "EEXIST",
    )
  }

  private scan(): void {
    if (this.disposed) return
    if (this.scanning) {
      this.again = true
      return
    }
    this.scanning = (async () => {
      do {
        this.again = false
        await this.scanOnce()
      } while (this.again && !this.disposed)
    })()
      .catch((error: unknown) => this.log("warn", `control requests could not be read: ${String(error)}`))
      .finally(() => {
        this.scanning = undefined
      })
  }

  private async scanOnce(): Promise<void> {
    const names = await readdir(this.folder).catch((error: NodeJS.ErrnoException) => {
      // The folder went away: watch the way to it again.
      if (error.code === "ENOENT" || error.code === "ENOTDIR") this.arm()
      return undefined
    })
    if (!names) return
    await this.leftovers(names)
    let took = false
    for (const id of waitingRequests(names)) {
      if (this.disposed) return
      took = (await this.take(id)) || took
    }
    // Requests that came while these were acted on: Bun may not have said so yet.
    if (took) this.again = true
  }

  /** What a run before this one left: requests taken but not answered, results no client took. */
  private async leftovers(names: readonly string[]): Promise<void> {
    const first = !this.started
    this.started = true
    await answerLeftovers(names, first, {
      folder: this.folder,
      inflight: (id) => this.inflight.has(id),
      orphans: this.options.orphans,
      answer: (id, result) => this.answer(id, result),
      now: this.now,
    })
  }

  /** Takes the request `id` if it is this instance's (false: gone, not a regular file, or another's). */
  private async take(id: string): Promise<boolean> {
    if (this.inflight.has(id)) return false
    const waiting = join(this.folder, requestName(id))
    const stat = await lstat(waiting).catch(() => undefined)
    if (!stat) return false
    if (!stat.isFile()) {
      if (!this.ignored.has(id))
        this.log("warn", `control request ${requestName(id)} is not a regular file: left alone`)
      this.ignored.add(id)
      return false
    }
    const read = await this.readRequest(id, waiting, stat.size)
    const route = await this.route(read.ok ? read.request : undefined).catch(
      (error: unknown): Route => ({ take: false, why: `its route could not be told: ${String(error)}` }),
    )
    if (!route.take) {
      if (!this.left.has(id)) this.log("info", "control request left to another process", { id, why: route.why })
      this.left.add(id)
      return false
    }
    this.left.delete(id)
    const taken = join(this.folder, takenName(id, this.taker))
    // Withdrawn by its client meanwhile, or taken by another instance: not ours.
    if (
      !(await rename(waiting, taken).then(
        () => true,
        () => false,
      ))
    )
      return false
    const work = this.queued(route.queue, async () => {
      const refused = (message: string) => ({ ok: false, title: "Ralph · request refused", message })
      const result = route.refusal
        ? { ok: false, ...route.refusal }
        : read.ok
          ? await this.actOn(read.request)
          : refused(read.reason)
      await this.answer(id, result)
      await rm(taken, { force: true }).catch(() => undefined)
    })
    this.inflight.set(id, work)
    void work.finally(() => this.inflight.delete(id))
    return true
  }

  /** `work` once the last one of `queue` is done (no queue: now). `work` never rejects. */
  private queued(queue: string | undefined, work: () => Promise<void>): Promise<void> {
    if (queue === undefined) return work()
    const next = (this.queues.get(queue) ?? Promise.resolve()).then(work)
    this.queues.set(queue, next)
    void next.then(() => this.queues.get(queue) === next && this.queues.delete(queue))
    return next
  }

  private async readRequest(
    id: string,
    file: string,
    size: number,
  ): Promise<{ ok: true; request: ControlRequest } | { ok: false; reason: string }> {
    if (size > MAX_REQUEST_BYTES) return { ok: false, reason: `the request is larger than ${MAX_REQUEST_BYTES} bytes` }
    const read = await readRegularFile(file)
    if (!read.ok) return { ok: false, reason: `the request ${read.message}` }
    return parseRequest(id, read.text)
  }

  private async actOn(request: ControlRequest): Promise<Omit<ControlResult, "id">> {
    this.log("info", "control request", { id: request.id, verb: request.verb, loop: request.loop, from: request.from })
    try {
      return await this.act(request)
    } catch (error) {
      return { ok: false, title: "Ralph · request failed", message: `The request could not be done: ${String(error)}` }
    }
  }

  private async answer(id: string, result: Omit<ControlResult, "id">): Promise<void> {
    await publish(this.directory, this.folder, resultName(id), `${JSON.stringify({ id, ...result })}\n`).catch(
      (error: unknown) =>
        this.log("warn", `the answer to control request ${id} could not be written: ${String(error)}`),
    )
  }
}
