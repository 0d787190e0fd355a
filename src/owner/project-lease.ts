// The project's lease on disk: `.opencode/ralph-loop/lease/<n>.json` (src/owner/lease-rule.ts is
// the rule). One look (`tick`) reads the numbered files, then beats (its own file rewritten), takes
// (the next number made with an exclusive create, then read again), or leaves it to the live holder.
// Nothing is made in a project without the plugin's state folder: no loop ever ran there, so there
// is no project-wide work, and a plugin loaded in any folder must not leave files behind.
import { lstat, rm } from "node:fs/promises"
import { join } from "node:path"
import { STALE_MS, type Heartbeat, type Identity } from "./heartbeat.js"
import { decideLease, type LeaseEntry } from "./lease-rule.js"
import { STATE_DIR } from "../project/own-files.js"
import { createHeartbeat, ensureFolder, readHeartbeats, usHere } from "./heartbeat-files.js"
import { beatLiveness } from "./liveness.js"
import { removeLeftoverTemps, writeHeartbeat } from "./heartbeat-files.js"
import { ignoreOwnFolder } from "../files/ignore-own-folder.js"

export const LEASE_DIR = `${STATE_DIR}/lease`

export type LeaseView =
  | { kind: "mine" }
  /** `holder` undefined: a damaged lease file not yet stale. */
  | { kind: "held"; holder: Heartbeat | undefined }
  /** No state folder in the project: nothing to hold. */
  | { kind: "no-folder" }

const seqOf = (name: string): number | undefined => {
  const digits = name.slice(0, -".json".length)
  const number = digits.length > 0 && digits.length <= 12 && [...digits].every((c) => c >= "0" && c <= "9")
  return number ? Number(digits) : undefined
}

export async function readLease(directory: string): Promise<LeaseEntry[]> {
  return (await readHeartbeats(join(directory, LEASE_DIR))).flatMap(({ name, record, writtenAt }) => {
    const seq = seqOf(name)
    return seq === undefined ? [] : [{ seq, record, writtenAt }]
  })
}

/** Whether the holder behind `record` still runs, as instance `boot` of this process sees it (owner/liveness.ts). */
const holderAlive = (boot: string) => (record: Heartbeat, now: number) => beatLiveness(record, usHere(now, boot)).alive

/** Whether a live process other than `me` holds the lease now (a look only: nothing is written). */
export async function heldByAnother(directory: string, me: Identity, now: number): Promise<boolean> {
  const entries = await readLease(directory).catch(() => [])
  const alive = holderAlive(me.boot)
  return decideLease(entries, me, now, (r) => alive(r, now), STALE_MS).kind === "held"
}

export class ProjectLease {
  private held: number | undefined
  /** When this process last beat its lease file (its last look that found the lease its own). */
  private heldAt = 0

  constructor(
    private readonly directory: string,
    private readonly me: Identity & { what: string },
    private readonly now: () => number = Date.now,
    private readonly alive: (record: Heartbeat, now: number) => boolean = holderAlive(me.boot),
  ) {}

  /**
   * Whether this process held the lease at its last look, and that look is not so old that another may
   * have taken it over since (STALE_MS: a process stalled that long — a suspended laptop, a debugger —
   * comes back to find it may not hold the lease; it acts again only once its next look says it does).
   */
  holds(): boolean {
    return this.held !== undefined && this.now() - this.heldAt < STALE_MS
  }

  /** One look at the lease: beat, take or leave it (throws only for what the file system refuses). */
  async tick(): Promise<LeaseView> {
    const state = await lstat(join(this.directory, STATE_DIR)).catch(() => undefined)
    if (!state?.isDirectory()) {
      this.held = undefined
      return { kind: "no-folder" }
    }
    const folder = join(this.directory, LEASE_DIR)
    await ensureFolder(this.directory, folder)
    await ignoreOwnFolder(this.directory)
    // Two rounds at most: a take, then the look that says whether it was this process's.
    for (let round = 0; round < 3; round += 1) {
      const now = this.now()
      const decision = decideLease(await readLease(this.directory), this.me, now, (r) => this.alive(r, now), STALE_MS)
      if (decision.kind === "held") {
        this.held = undefined
        return { kind: "held", holder: decision.holder }
      }
      if (decision.kind === "mine") {
        await writeHeartbeat(folder, `${decision.seq}.json`, this.record(now))
        this.held = decision.seq
        this.heldAt = now
        for (const seq of decision.older) await rm(join(folder, `${seq}.json`), { force: true }).catch(() => undefined)
        await removeLeftoverTemps(folder, now - STALE_MS)
        return { kind: "mine" }
      }
      await createHeartbeat(folder, `${decision.seq}.json`, this.record(now))
    }
    this.held = undefined
    return { kind: "held", holder: undefined }
  }

  /** Gives the lease up (the next process takes it at its next look, not after STALE_MS). Never throws. */
  async release(): Promise<void> {
    const seq = this.held
    this.held = undefined
    if (seq === undefined) return
    const released = { ...this.record(this.now()), released: true }
    await writeHeartbeat(join(this.directory, LEASE_DIR), `${seq}.json`, released).catch(() => undefined)
  }

  private record(now: number): Heartbeat {
    return { ...this.me, heartbeat: now }
  }
}
