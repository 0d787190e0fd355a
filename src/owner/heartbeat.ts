// A process's heartbeat: who it is (pid, host, a boot id of its own) and when it last said it is
// there. Written by each OpenCode instance in the project's state folder (processes/<boot>.json, for
// the loops it owns) and by the lease holder (lease/<n>.json). Pure: the schema, the beat's timing
// and the words for a process; whether the process behind a record still runs is src/owner/liveness.ts.
import { z } from "zod"

/** How often a live process writes its heartbeat. */
export const HEARTBEAT_MS = 2_000

/**
 * A heartbeat older than this is a process that stopped — on another host; here, where its pid is
 * asked too, one whose pid runs is stalled until STALLED_MS (src/owner/liveness.ts). Seven beats
 * missed: a busy machine does not lose it.
 */
export const STALE_MS = 15_000

/**
 * A local process whose pid still runs but whose heartbeat is older than STALE_MS is stalled (a
 * machine so busy that its timers wait, a debugger, a suspended laptop): it keeps what it owns — a
 * take-over now would make two engines once it goes on — until its heartbeat is this old. Then it
 * is a hung process or a reused pid (a reboot that gave its pid to another process), and gone.
 */
export const STALLED_MS = 5 * 60_000

export const heartbeatSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  /** One id per OpenCode instance (a restart, or a second instance in the same process, is another). */
  boot: z.string().min(1).max(100),
  /** When it was last written (ms since the epoch). */
  heartbeat: z.number(),
  /** Who it is, for the messages that name it ("OpenCode", "ralph-loop clean"). */
  what: z.string().max(80).optional(),
  /** Given up on purpose (an instance disposed, a clean done): the next process takes over at once. */
  released: z.boolean().optional(),
})
export type Heartbeat = z.infer<typeof heartbeatSchema>

/** Who a process is, without its beat. */
export type Identity = Pick<Heartbeat, "pid" | "host" | "boot">

/** "OpenCode (pid 123, last heartbeat 2 s ago)", for messages that name a process. */
export function describeHeartbeat(record: Heartbeat, now: number, alive: boolean): string {
  const ago = Math.max(0, Math.round((now - record.heartbeat) / 1000))
  const where = `pid ${record.pid}${record.host ? ` on ${record.host}` : ""}`
  return `${record.what ?? "a process"} (${where}, ${alive ? "running" : "not running"}; last heartbeat ${ago} s ago)`
}
