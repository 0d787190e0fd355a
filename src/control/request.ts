// A control request and its result: what another process (the TUI half, the `ralph-loop` command,
// a headless runner) asks the plugin to do to a loop without a chat message, and what the plugin
// answers. Both are JSON files in the project's control folder (see client.ts, channel.ts). Pure.
import { z } from "zod"
import { STATE_DIR } from "../project/own-files.js"

/** Where requests and results live, relative to the project (or to a worktree loop's worktree). */
export const CONTROL_DIR = `${STATE_DIR}/control`

/** `status` only reads: the answer's message is what /ralph-status says in `session` (the TUI's dialog). */
/** `clean`: `ralph-loop clean` done by the lease holder (days, force: its flags). */
/** `accept`: what refused the loop's last claim, accepted by its keys (issue 46). */
const CONTROL_VERBS = [
  "pause",
  "resume",
  "cancel",
  "rollback",
  "hint",
  "remember",
  "forget",
  "status",
  "clean",
  "accept",
] as const
export type ControlVerb = (typeof CONTROL_VERBS)[number]

/** An accept names at most this many keys, each at most MAX_KEY_CHARS long (within MAX_REQUEST_BYTES); none: all. */
export const MAX_ACCEPT_KEYS = 20
export const MAX_KEY_CHARS = 600

/** A request file larger than this is refused unread. */
export const MAX_REQUEST_BYTES = 16_384

/** `<sortable time>-<random>`: names sort in the order the requests were made. */
const ID = /^\d{13}-[0-9a-f]{8}$/

export const controlRequestSchema = z
  .object({
    id: z.string().regex(ID),
    verb: z.enum(CONTROL_VERBS),
    /** The loop's id or the start of it; absent: the project's one live loop. Not for remember/forget/status/clean. */
    loop: z.string().min(1).max(200).optional(),
    /** rollback: a checkpoint's number, or "start"; absent: the checkpoint before the last. */
    checkpoint: z.union([z.number().int().nonnegative(), z.literal("start")]).optional(),
    /** hint, remember, forget: the text. */
    text: z.string().max(4_000).optional(),
    /** status: the session whose /ralph-status is asked for; absent: no session (the TUI's home). */
    session: z.string().min(1).max(200).optional(),
    /** clean: `--days` (what ended longer ago goes) and `--force`. */
    days: z.number().int().nonnegative().max(1_000_000).optional(),
    force: z.boolean().optional(),
    /** pause: "interrupt" when a headless runner got a signal (the loop's pauseCause); absent: a person. */
    cause: z.literal("interrupt").optional(),
    /** accept: the keys of what refused the loop's last claim (none: all of it). */
    keys: z.array(z.string().min(1).max(MAX_KEY_CHARS)).max(MAX_ACCEPT_KEYS).optional(),
    /** accept: the session whose model's shell ran the command (RALPH_LOOP_MODEL_SESSION): refused. */
    modelSession: z.string().min(1).max(200).optional(),
    /** Who asks, as the loop's state will say it ("ralph-loop pause", "the TUI"). */
    from: z.string().max(80).optional(),
  })
  .strict()
export type ControlRequest = z.infer<typeof controlRequestSchema>

export const controlResultSchema = z.object({
  id: z.string(),
  /** Done (false: refused, with the reason in `message`). */
  ok: z.boolean(),
  title: z.string(),
  message: z.string(),
  /** The loop acted on, when there was one. */
  loop: z.string().optional(),
})
export type ControlResult = z.infer<typeof controlResultSchema>

/** A new request id at `now`: sortable by time, then random. */
export function newRequestId(now: number, random: string): string {
  return `${String(Math.max(0, Math.floor(now)))
    .padStart(13, "0")
    .slice(-13)}-${random}`
}

/** The three names of a request's life: waiting, taken by the plugin (the instance's boot id in it), answered. */
export const requestName = (id: string): string => `${id}.request.json`
export const takenName = (id: string, taker?: string): string =>
  taker === undefined ? `${id}.taken.json` : `${id}.${taker}.taken.json`
export const resultName = (id: string): string => `${id}.result.json`

/** The id of a request file's name (`<id>.request.json`), else undefined. */
export function requestIdOf(name: string): string | undefined {
  const id = name.endsWith(".request.json") ? name.slice(0, -".request.json".length) : undefined
  return id !== undefined && ID.test(id) ? id : undefined
}

/** The id and taker of a taken request's name (`<id>.<taker>.taken.json`; older versions': `<id>.taken.json`). */
export function takenIdOf(name: string): { id: string; taker: string | undefined } | undefined {
  if (!name.endsWith(".taken.json")) return undefined
  const rest = name.slice(0, -".taken.json".length)
  const dot = rest.indexOf(".")
  const id = dot < 0 ? rest : rest.slice(0, dot)
  const taker = dot < 0 ? undefined : rest.slice(dot + 1)
  return ID.test(id) && taker !== "" ? { id, taker } : undefined
}

/** The requests waiting in a folder listing, in the order they are acted on (their names'). */
export function waitingRequests(names: readonly string[]): string[] {
  return names
    .flatMap((name) => {
      const id = requestIdOf(name)
      return id === undefined ? [] : [id]
    })
    .sort()
}

/** A request file's text as a request; the reason when it is not one (its id from the name wins). */
export function parseRequest(
  id: string,
  text: string,
): { ok: true; request: ControlRequest } | { ok: false; reason: string } {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return { ok: false, reason: "the request is not JSON" }
  }
  const parsed = controlRequestSchema.safeParse(data)
  if (!parsed.success)
    return {
      ok: false,
      reason: `the request is not one the plugin knows: ${parsed.error.issues
        .map((i) => `${i.path.join(".") || "request"}: ${i.message}`)
        .slice(0, 3)
        .join("; ")}`,
    }
  if (parsed.data.id !== id)
    return { ok: false, reason: `the request's id ${parsed.data.id} is not its file's (${id})` }
  return { ok: true, request: parsed.data }
}
