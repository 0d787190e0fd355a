// Each OpenCode instance's heartbeat in the project: `.opencode/ralph-loop/processes/<boot>.json`.
// A loop's state names its owner (pid, host, boot); this file says whether that owner still beats
// (src/owner/heartbeat.ts). Written by the instance every HEARTBEAT_MS, removed when it is disposed.
import { rm } from "node:fs/promises"
import { join } from "node:path"
import type { Heartbeat } from "./heartbeat.js"
import { STATE_DIR } from "../project/own-files.js"
import { readHeartbeats, writeHeartbeat } from "./heartbeat-files.js"

export const PROCESSES_DIR = `${STATE_DIR}/processes`

/** A presence file no one wrote for this long is removed by the lease holder. */
export const FORGET_PRESENCE_MS = 24 * 60 * 60_000

const fileName = (boot: string): string => `${boot}.json`

/** Only a boot id made of letters, digits and dashes names a file. */
export const bootNamesFile = (boot: string): boolean => /^[A-Za-z0-9-]{1,100}$/.test(boot)

export async function writePresence(directory: string, record: Heartbeat): Promise<void> {
  if (!bootNamesFile(record.boot)) return
  await writeHeartbeat(join(directory, PROCESSES_DIR), fileName(record.boot), record)
}

export async function removePresence(directory: string, boot: string): Promise<void> {
  if (!bootNamesFile(boot)) return
  await rm(join(directory, PROCESSES_DIR, fileName(boot)), { force: true })
}

/** The instances' heartbeats in `directory`, by boot id. */
export async function readPresence(directory: string): Promise<Map<string, Heartbeat>> {
  const files = await readHeartbeats(join(directory, PROCESSES_DIR))
  const named = files.flatMap((f) => (f.record && f.name === fileName(f.record.boot) ? [f.record] : []))
  return new Map(named.map((record) => [record.boot, record]))
}

/** Presence files of instances that stopped long ago (a crash leaves them). */
export async function forgetOldPresence(directory: string, now: number): Promise<void> {
  const files = await readHeartbeats(join(directory, PROCESSES_DIR))
  for (const f of files)
    if (now - (f.record?.heartbeat ?? f.writtenAt) > FORGET_PRESENCE_MS)
      await rm(join(directory, PROCESSES_DIR, f.name), { force: true }).catch(() => undefined)
}
