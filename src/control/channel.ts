// The control channel's server side, in the plugin: it watches the control folder (client.ts writes
// the requests) and acts on each request once, one at a time, in the order of their names. A
// request is first renamed `<id>.taken.json` — from then on its client cannot withdraw it — then
// acted on; its result is written before the taken file is removed, so a restart never acts twice:
// a taken file found at start without a result is answered "interrupted", not acted on again. A
// request written while OpenCode was not running is acted on at the next start.
// Everything runs off the event path (fs.watch callbacks only schedule a scan) and nothing throws out.
// In OpenCode's Bun (1.3.14) fs.watch on Linux may hold an event back until the next one comes, so a
// request could wait for hours: the folder is also looked at every RESCAN_MS (one readdir).
import { watch, type FSWatcher } from "node:fs"
import { lstat, mkdir, readdir, rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { OPENCODE_DIR, STATE_DIR } from "../project/own-files.js"
import { publish } from "./publish.js"
import { readRegularFile } from "../store/regular-file.js"
import { CONTROL_DIR, MAX_REQUEST_BYTES, parseRequest, requestName, resultName, takenIdOf, takenName, waitingRequests, type ControlRequest, type ControlResult } from "./request.js"

export type ControlAct = (request: ControlRequest) => Promise<Omit<ControlResult, "id">>
export type ControlLog = (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void

/** How often the folder is looked at besides fs.watch's events. */
export const RESCAN_MS = 1_000

/** A result no client took this long after it was written is removed at the next start. */
const STALE_RESULT_MS = 10 * 60_000

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

  constructor(
    private readonly directory: string,
    private readonly act: ControlAct,
    private readonly log: ControlLog,
    private readonly now: () => number = Date.now,
    private readonly watchFolder: WatchFolder = (folder, listener) => watch(folder, listener),
  ) {
    this.folder = join(directory, CONTROL_DIR)
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

  /** Resolves once the requests seen so far are acted on (tests). */
  async settled(): Promise<void> {
    while (this.scanning) await this.scanning
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
      if (stat && folder === this.folder) this.log("warn", `${CONTROL_DIR} is not a folder: control requests are not read`)
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
    if (!this.started) {
      this.started = true
      await this.afterRestart(names)
    }
    let took = false
    for (const id of waitingRequests(names)) {
      if (this.disposed) return
      took = (await this.take(id)) || took
    }
    // Requests that came while these were acted on: Bun may not have said so yet.
    if (took) this.again = true
  }

  /** What a run before this one left: requests taken but not answered, results no client took. */
  private async afterRestart(names: readonly string[]): Promise<void> {
    for (const name of names) {
      const id = takenIdOf(name)
      if (id !== undefined) {
        if (!names.includes(resultName(id)))
          await this.answer(id, { ok: false, title: "Ralph · request interrupted", message: "OpenCode stopped while acting on this request; whether it was done is not known. See ralph-loop status." })
        await rm(join(this.folder, name), { force: true }).catch(() => undefined)
      } else if (name.endsWith(".result.json")) {
        const stat = await lstat(join(this.folder, name)).catch(() => undefined)
        if (stat && this.now() - stat.mtimeMs > STALE_RESULT_MS) await rm(join(this.folder, name), { force: true }).catch(() => undefined)
      }
    }
  }

  /** Acts on the request `id` if it is one to take (false: gone, or not a regular file). */
  private async take(id: string): Promise<boolean> {
    const waiting = join(this.folder, requestName(id))
    const taken = join(this.folder, takenName(id))
    const stat = await lstat(waiting).catch(() => undefined)
    if (!stat) return false
    if (!stat.isFile()) {
      if (!this.ignored.has(id)) this.log("warn", `control request ${requestName(id)} is not a regular file: left alone`)
      this.ignored.add(id)
      return false
    }
    // Withdrawn by its client meanwhile, or taken by another instance: not ours.
    if (!(await rename(waiting, taken).then(() => true, () => false))) return false
    await this.answer(id, await this.resultOf(id, taken))
    await rm(taken, { force: true }).catch(() => undefined)
    return true
  }

  private async resultOf(id: string, file: string): Promise<Omit<ControlResult, "id">> {
    const refused = (message: string) => ({ ok: false, title: "Ralph · request refused", message })
    const stat = await lstat(file).catch(() => undefined)
    if (!stat?.isFile()) return refused("the request is not a regular file")
    if (stat.size > MAX_REQUEST_BYTES) return refused(`the request is larger than ${MAX_REQUEST_BYTES} bytes`)
    const read = await readRegularFile(file)
    if (!read.ok) return refused(`the request ${read.message}`)
    const parsed = parseRequest(id, read.text)
    if (!parsed.ok) return refused(parsed.reason)
    this.log("info", "control request", { id, verb: parsed.request.verb, loop: parsed.request.loop, from: parsed.request.from })
    try {
      return await this.act(parsed.request)
    } catch (error) {
      return { ok: false, title: "Ralph · request failed", message: `The request could not be done: ${String(error)}` }
    }
  }

  private async answer(id: string, result: Omit<ControlResult, "id">): Promise<void> {
    await publish(this.directory, this.folder, resultName(id), `${JSON.stringify({ id, ...result })}\n`).catch((error: unknown) =>
      this.log("warn", `the answer to control request ${id} could not be written: ${String(error)}`),
    )
  }
}
