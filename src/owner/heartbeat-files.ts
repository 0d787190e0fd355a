// The heartbeat files on disk (src/owner/heartbeat.ts says what one is): reading a folder of them,
// writing one atomically, and making one that must not exist yet (an exclusive create: the record
// is written whole to a temp file, then hard-linked to its name, which fails if the name is taken —
// so a reader never sees half of it, and of two makers only one succeeds). Never follows a link.
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { readFileSync } from "node:fs"
import { link, lstat, mkdir, readdir, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { heartbeatSchema, type Heartbeat } from "./heartbeat.js"
import { beatLiveness, type Us } from "./liveness.js"
import { assertInside, isLeftoverTemp, writeFileAtomic } from "../files/atomic.js"
import { readRegularFile } from "../files/regular-file.js"

/**
 * The name this machine goes by in owner records: os.hostname(), or RALPH_LOOP_HOST_ID when set — for
 * a container that shares the host's name but not its pids (docker --network host), and for the
 * tests, which run two OpenCode processes as two hosts.
 */
export const HOST = process.env.RALPH_LOOP_HOST_ID || hostname()

/**
 * Whether a process of this pid runs (another user's too: EPERM). On Linux a zombie — a process that
 * exited and that its parent has not reaped yet, which signal 0 still reaches — does not run.
 */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  return !zombie(pid)
}

function zombie(pid: number): boolean {
  if (process.platform !== "linux") return false
  try {
    // The state follows the command's name in parentheses, which may hold anything: after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z"
  } catch {
    return false
  }
}

/** This process as src/owner/liveness.ts sees who asks (`boot`: the asking instance's). */
export const usHere = (now: number, boot?: string): Us => ({ host: HOST, pid: process.pid, boot, now, pidAlive })

/** The rule of src/owner/liveness.ts for a heartbeat record, asked on this machine. */
export const aliveHere = (record: Heartbeat, now: number, beats?: Iterable<Heartbeat>): boolean =>
  beatLiveness(record, usHere(now), beats).alive

export interface HeartbeatFile {
  name: string
  /** Undefined: not a heartbeat (damaged). */
  record: Heartbeat | undefined
  writtenAt: number
}

/** The `*.json` regular files in `folder` as heartbeats (none when the folder is missing). */
export async function readHeartbeats(folder: string): Promise<HeartbeatFile[]> {
  const all = await readdir(folder).catch(() => [] as string[])
  const names = all.filter((name) => name.endsWith(".json") && !name.startsWith("."))
  const files = await Promise.all(
    names.map(async (name): Promise<HeartbeatFile | undefined> => {
      const file = join(folder, name)
      const stat = await lstat(file).catch(() => undefined)
      if (!stat?.isFile()) return undefined
      const read = await readRegularFile(file, { follow: false })
      return { name, record: read.ok ? parseHeartbeat(read.text) : undefined, writtenAt: stat.mtimeMs }
    }),
  )
  return files.filter((f) => f !== undefined)
}

function parseHeartbeat(text: string): Heartbeat | undefined {
  try {
    const parsed = heartbeatSchema.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

const textOf = (record: Heartbeat): string => `${JSON.stringify(record)}\n`

/** Makes `folder` inside `root` (never through a link out of it). */
export async function ensureFolder(root: string, folder: string): Promise<void> {
  await assertInside(root, folder)
  await mkdir(folder, { recursive: true })
}

/** Rewrites `folder/name` at once (rename over it). */
export async function writeHeartbeat(folder: string, name: string, record: Heartbeat): Promise<void> {
  await writeFileAtomic(join(folder, name), textOf(record))
}

/** Makes `folder/name` holding `record` if nothing has that name yet; false when something has. */
export async function createHeartbeat(folder: string, name: string, record: Heartbeat): Promise<boolean> {
  const temp = join(folder, `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`)
  try {
    await writeFile(temp, textOf(record), { encoding: "utf8", flag: "wx" })
    return await link(temp, join(folder, name)).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "EEXIST") return false
        throw error
      },
    )
  } finally {
    await rm(temp, { force: true })
  }
}

/** Temp files a crash left between the write and the link (older than `beforeMs`). */
export async function removeLeftoverTemps(folder: string, beforeMs: number): Promise<void> {
  const names = (await readdir(folder).catch(() => [] as string[])).filter(isLeftoverTemp)
  for (const name of names) {
    const stat = await lstat(join(folder, name)).catch(() => undefined)
    if (stat && stat.mtimeMs < beforeMs) await rm(join(folder, name), { force: true }).catch(() => undefined)
  }
}
