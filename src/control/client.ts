// The control channel's client: another process asks the plugin running in OpenCode to act on a
// loop — without a chat message, so no model turn. Used by the TUI half, the `ralph-loop pause |
// resume | cancel | hint | rollback` commands and a headless runner.
//
//   sendControl(directory, ask, options?) → Promise<ControlOutcome>
//     directory  the folder OpenCode runs in: the project, or a worktree loop's worktree (a worktree
//                loop runs in an instance of its own there; see target.ts to find it from files)
//     ask        { verb, loop?, checkpoint?, text?, from? } (request.ts: ControlAsk)
//     options    { timeoutMs? (default 15 s): how long the plugin may take to pick the request up,
//                  takenTimeoutMs? (default 120 s): how long it may then take to answer (a rollback
//                  writes files), signal?: AbortSignal (withdraws the request like a timeout) }
//   ControlOutcome = { id, status: "done" | "refused" | "no-answer", title, message, loop? }
//     done:      the plugin did it;  refused: it would not (the reason is `message`);
//     no-answer: nothing answered — OpenCode is not running with the plugin in `directory`. The
//                request was withdrawn then (nothing will act on it later) unless the plugin had
//                already taken it, which `message` says.
//   sendControl never throws for what the plugin or the files do; it throws only for an `ask` that
//   is not a request (a bad verb, a text too long: the same schema the plugin reads).
//
// The exchange, in `<directory>/.opencode/ralph-loop/control/`: the client writes
// `<id>.request.json` (whole, renamed in from control/.tmp/); the plugin renames it `<id>.taken.json` (from then on a
// withdrawal
// cannot happen), acts, writes `<id>.result.json`, then removes the taken file; the client reads the
// result and removes it. The client waits on fs.watch, and looks every 250 ms too: in Bun (the TUI)
// fs.watch may hold an event back.
import { randomBytes } from "node:crypto"
import { watch, type FSWatcher } from "node:fs"
import { rm, unlink } from "node:fs/promises"
import { join } from "node:path"
import { nobodyTookIt } from "./owner-note.js"
import { publish } from "./publish.js"
import { readRegularFile } from "../files/regular-file.js"
import {
  CONTROL_DIR,
  controlRequestSchema,
  controlResultSchema,
  newRequestId,
  requestName,
  resultName,
  type ControlRequest,
} from "./request.js"

/** A request as the caller gives it: the id is the client's. */
export type ControlAsk = Omit<ControlRequest, "id">

export interface ControlOutcome {
  id: string
  status: "done" | "refused" | "no-answer"
  title: string
  message: string
  /** The loop acted on, when the plugin named one. */
  loop?: string
}

export interface ControlOptions {
  timeoutMs?: number
  takenTimeoutMs?: number
  signal?: AbortSignal
}

/** How often the answer is looked for besides fs.watch's events. */
const RECHECK_MS = 250

export const controlFolder = (directory: string): string => join(directory, CONTROL_DIR)

export async function sendControl(
  directory: string,
  ask: ControlAsk,
  options: ControlOptions = {},
): Promise<ControlOutcome> {
  const id = newRequestId(Date.now(), randomBytes(4).toString("hex"))
  const request = controlRequestSchema.parse({ ...ask, id })
  const folder = controlFolder(directory)
  const requestFile = join(folder, requestName(id))
  const resultFile = join(folder, resultName(id))
  try {
    await publish(directory, folder, requestName(id), `${JSON.stringify(request)}\n`)
  } catch (error) {
    return {
      id,
      status: "refused",
      title: "Ralph · request not sent",
      message:
        `The request could not be written in ${folder}: ` + `${error instanceof Error ? error.message : String(error)}`,
    }
  }
  if (await answered(folder, resultFile, options.timeoutMs ?? 15_000, options.signal)) return takeResult(id, resultFile)
  // No answer in time: withdrawn, unless the plugin has taken it (the request file is gone then).
  const withdrawn = await unlink(requestFile).then(
    () => true,
    () => false,
  )
  if (withdrawn) {
    const who = await nobodyTookIt(directory, ask.loop)
    const message =
      `No answer: is OpenCode running with the ralph-loop plugin in ${directory}?` +
      `${who ? ` ${who}` : ""} The request was withdrawn; nothing was done.`
    return { id, status: "no-answer", title: "Ralph · no answer", message }
  }
  if (await answered(folder, resultFile, options.takenTimeoutMs ?? 120_000, options.signal))
    return takeResult(id, resultFile)
  return {
    id,
    status: "no-answer",
    title: "Ralph · no answer",
    message: `The plugin took the request but has not answered yet; it may still act on it. See ralph-loop status.`,
  }
}

/**
 * Resolves true once `file` exists in `folder` (watched, and looked at every RECHECK_MS), false after `timeoutMs` or an
 * abort.
 */
function answered(folder: string, file: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined
    let done = false
    const finish = (value: boolean) => {
      if (done) return
      done = true
      clearTimeout(timer)
      clearInterval(recheck)
      signal?.removeEventListener("abort", aborted)
      watcher?.close()
      resolve(value)
    }
    const check = () => {
      void readRegularFile(file).then((read) => {
        if (read.ok || read.reason !== "missing") finish(true)
      })
    }
    const aborted = () => finish(false)
    const timer = setTimeout(() => finish(false), timeoutMs)
    // Bun's fs.watch may hold an event back until the next one (channel.ts): looked at now and then too.
    const recheck = setInterval(check, RECHECK_MS)
    if (signal?.aborted) return finish(false)
    signal?.addEventListener("abort", aborted)
    try {
      watcher = watch(folder, () => check())
      watcher.on("error", () => undefined)
    } catch {
      // The folder went away: no answer can come.
      return finish(false)
    }
    // The answer may have come before the watch began.
    check()
  })
}

async function takeResult(id: string, file: string): Promise<ControlOutcome> {
  const read = await readRegularFile(file)
  await rm(file, { force: true }).catch(() => undefined)
  const parsed = read.ok ? safeJson(read.text) : undefined
  const result = controlResultSchema.safeParse(parsed)
  if (!result.success || result.data.id !== id)
    return {
      id,
      status: "refused",
      title: "Ralph · unreadable answer",
      message: `The plugin's answer ${file} could not be read.`,
    }
  const { ok, title, message, loop } = result.data
  return { id, status: ok ? "done" : "refused", title, message, ...(loop === undefined ? {} : { loop }) }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
