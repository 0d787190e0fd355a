// Who writes a loop's state file, and whether that process still runs (the one rule:
// src/owner/liveness.ts, with the instances' heartbeats in processes/<boot>.json). A second OpenCode
// on the project leaves a loop its live owner runs; a loop whose owner is gone is taken back — at
// the start of an instance, or (by the project's lease holder) at a heartbeat (`orphanedLoops`).
import { lstat, readdir } from "node:fs/promises"
import { join } from "node:path"
import type { Loop } from "../loop/loop.js"
import { HOST, usHere } from "../owner/heartbeat-files.js"
import type { Heartbeat } from "../owner/heartbeat.js"
import { ownerLiveness } from "../owner/liveness.js"
import { readPresence } from "../owner/presence-files.js"
import { readRegularFile } from "../files/regular-file.js"

/** Which process writes a loop's file: a second OpenCode on the same project must not take it over. */
export interface LoopOwner {
  pid: number
  host: string
  /** The instance's boot id (absent in files of older versions). */
  boot?: string | undefined
}

export const OWNER: LoopOwner = { pid: process.pid, host: HOST }

/** Whether a loop of `owner` is run by another live process, as instance `boot` of this process sees it at `now`. */
export type OwnedElsewhere = (owner: LoopOwner | undefined) => boolean

export async function ownedElsewhere(directory: string, now: number, boot?: string): Promise<OwnedElsewhere> {
  const presence = await readPresence(directory).catch(() => new Map<string, Heartbeat>())
  const us = usHere(now, boot)
  return (owner) => {
    if (!owner) return false
    const beat = owner.boot === undefined ? undefined : presence.get(owner.boot)
    const liveness = ownerLiveness(owner, beat, us, presence.values())
    return liveness.alive && liveness.why !== "us"
  }
}

interface Seen {
  mtimeMs: number
  /** Undefined: an ended loop, or a file that is not a loop's (looked at again only when it changes). */
  live: { loop: Loop; owner: LoopOwner | undefined; text: string } | undefined
}

/**
 * The loops on disk that go on, that this instance does not run (`running`) and whose owner is
 * gone: what a heartbeat takes back. Ended loops are read once (a file is read again only when it
 * changes), so a beat costs a listing and a stat per file.
 */
export class OrphanScan {
  private readonly seen = new Map<string, Seen>()

  constructor(
    private readonly loopsDir: string,
    private readonly parse: (text: string) => { loop: Loop; owner?: LoopOwner | undefined },
  ) {}

  async orphans(
    elsewhere: OwnedElsewhere,
    running: (id: string) => boolean,
  ): Promise<Array<{ loop: Loop; text: string }>> {
    const names = (await readdir(this.loopsDir).catch(() => [] as string[])).filter(
      (n) => n.endsWith(".json") && !n.startsWith("."),
    )
    for (const name of this.seen.keys()) if (!names.includes(name)) this.seen.delete(name)
    const found: Array<{ loop: Loop; text: string }> = []
    for (const name of names) {
      const live = await this.look(name)
      if (live && !running(live.loop.id) && !elsewhere(live.owner)) found.push({ loop: live.loop, text: live.text })
    }
    return found
  }

  private async look(name: string): Promise<Seen["live"]> {
    const file = join(this.loopsDir, name)
    const stat = await lstat(file).catch(() => undefined)
    if (!stat?.isFile()) return undefined
    const before = this.seen.get(name)
    if (before && before.mtimeMs === stat.mtimeMs) return before.live
    const read = await readRegularFile(file)
    let live: Seen["live"]
    try {
      const parsed = read.ok ? this.parse(read.text) : undefined
      if (read.ok && parsed && parsed.loop.phase !== "stopped")
        live = { loop: parsed.loop, owner: parsed.owner, text: read.text }
    } catch {
      live = undefined // damaged: the next start of OpenCode moves it aside and rebuilds it
    }
    this.seen.set(name, { mtimeMs: stat.mtimeMs, live })
    return live
  }
}
