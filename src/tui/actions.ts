// What the TUI's commands do to a loop: each goes through the control channel (src/control/), which
// the server plugin acts on without a chat message; the answer is shown as a toast.
import { readFile, stat } from "node:fs/promises"
import { join } from "node:path"
import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { createComponent } from "solid-js"
import { changedBetween, listCheckpoints } from "../checkpoints/checkpoint-git.js"
import { sendControl, type ControlAsk } from "../control/client.js"
import { MAX_ACCEPT_KEYS, MAX_KEY_CHARS } from "../control/request.js"
import { controlTarget } from "../control/target.js"
import { MEMORY_FILE, OPENCODE_DIR } from "../project/own-files.js"
import { statusDocument } from "../status/document.js"
import { readProjectLoops } from "../status/read-project.js"
import { checkpointOption, sessionLoop } from "./texts.js"

const FROM = "the TUI"

/** How long /ralph-status waits for the server plugin to take its request, then to answer it. */
const STATUS_TIMEOUT_MS = 5_000
const STATUS_TAKEN_TIMEOUT_MS = 10_000

/** /ralph-status's text from the server plugin, or why there is none (`why` undefined: nothing to ask). */
export type ServerStatus = { ok: true; title: string; message: string } | { ok: false; why: string | undefined }

export class TuiActions {
  constructor(
    private readonly api: TuiPluginApi,
    private readonly directory: string,
    /** The loop id the command is for: the session's loop, when the TUI shows a session that has one. */
    private readonly loopOf: () => Promise<string | undefined>,
  ) {}

  private toast(ok: boolean, title: string, message: string) {
    this.api.ui.toast({ variant: ok ? "success" : "error", title, message })
  }

  /** Sends `ask` for the session's loop (else the project's one live loop) and shows the answer. */
  async send(ask: Omit<ControlAsk, "loop" | "from">, loop?: string): Promise<void> {
    const wanted = loop ?? (ask.verb === "remember" || ask.verb === "forget" ? undefined : await this.loopOf())
    let directory = this.directory
    let named = wanted
    if (ask.verb !== "remember" && ask.verb !== "forget") {
      const target = await controlTarget(this.directory, wanted, ask.verb)
      if (!target.ok) return this.toast(false, "Ralph loop", target.reason)
      directory = target.target.directory
      named = target.target.loop
    }
    const outcome = await sendControl(directory, { ...ask, ...(named ? { loop: named } : {}), from: FROM })
    this.toast(outcome.status === "done", outcome.title, outcome.message)
  }

  /**
   * What the server's /ralph-status says for `session`, asked through the control channel (the one
   * text of it: src/acts/status.ts) — of the worktree's instance when the session is a live worktree loop's.
   * Not asked in a folder without `.opencode/`: no loop or plan can be there, and the request would
   * make the plugin's folders in it.
   */
  async serverStatus(session: string | undefined): Promise<ServerStatus> {
    const own = session === undefined ? undefined : sessionLoop((await readProjectLoops(this.directory)).loops, session)
    // An ended worktree loop's instance may be gone, and its worktree on its way out: nothing is written there.
    if (own?.worktree && own.loop.phase === "stopped") return { ok: false, why: undefined }
    const directory = own?.worktree?.path ?? this.directory
    const folder = await stat(join(directory, OPENCODE_DIR)).catch(() => undefined)
    if (!folder?.isDirectory()) return { ok: false, why: undefined }
    const outcome = await sendControl(
      directory,
      { verb: "status", ...(session ? { session } : {}), from: FROM },
      { timeoutMs: STATUS_TIMEOUT_MS, takenTimeoutMs: STATUS_TAKEN_TIMEOUT_MS },
    )
    if (outcome.status === "done") return { ok: true, title: outcome.title, message: outcome.message }
    return {
      ok: false,
      why:
        outcome.status === "no-answer"
          ? "the ralph-loop server plugin did not answer (OpenCode's server runs elsewhere, or without the plugin)"
          : outcome.message,
    }
  }

  /** A dialog asking for a text, then `send`. */
  ask(title: string, placeholder: string, verb: "hint" | "remember") {
    this.api.ui.dialog.replace(() =>
      createComponent(this.api.ui.DialogPrompt, {
        title,
        placeholder,
        onConfirm: (text: string) => {
          this.api.ui.dialog.clear()
          if (text.trim()) void this.send({ verb, text: text.trim() })
        },
        onCancel: () => this.api.ui.dialog.clear(),
      }),
    )
  }

  async memory(): Promise<void> {
    const text = await readFile(join(this.directory, MEMORY_FILE), "utf8").catch(() => undefined)
    this.api.ui.dialog.replace(() =>
      createComponent(this.api.ui.DialogAlert, {
        title: "Ralph loop · project memory",
        message: text?.trim() ? text.trim() : `No project memory yet (${MEMORY_FILE}). /ralph-remember adds an entry.`,
        onConfirm: () => this.api.ui.dialog.clear(),
      }),
    )
  }

  /** The loop's checkpoints in a picker (iteration, time, files changed, checks), then a confirm, then the rollback. */
  async rollback(loop?: string): Promise<void> {
    const target = await controlTarget(this.directory, loop ?? (await this.loopOf()), "rollback")
    if (!target.ok) return this.toast(false, "Ralph loop", target.reason)
    const { directory, loop: id } = target.target
    const checkpoints = await listCheckpoints(directory, id)
    if (checkpoints.length === 0) return this.toast(false, "Ralph loop", `Loop ${id} has no checkpoints.`)
    const loops = await readProjectLoops(this.directory)
    const history = statusDocument(this.directory, loops.loops, loops.history, id, Date.now()).selected?.history ?? []
    const options = await Promise.all(
      checkpoints.map(async (c, i) => {
        const before = checkpoints[i - 1]
        const files = before ? (await changedBetween(directory, before.commit, c.commit)).length : undefined
        return {
          ...checkpointOption(
            c,
            files,
            history.find((r) => r.iteration === c.iteration),
          ),
          value: c.number,
        }
      }),
    )
    this.api.ui.dialog.replace(() =>
      createComponent(this.api.ui.DialogSelect<number>, {
        title: `Roll back loop ${id.slice(0, 24)} to…`,
        options: options.reverse(),
        onSelect: (option) => this.confirmRollback(id, option.value, option.title),
      }),
    )
  }

  /** What refused the loop's last claim of done (its status's keys), in a confirm, then accepted by them (issue 46). */
  async accept(loop?: string): Promise<void> {
    const target = await controlTarget(this.directory, loop ?? (await this.loopOf()), "accept")
    if (!target.ok) return this.toast(false, "Ralph loop", target.reason)
    const id = target.target.loop
    const loops = await readProjectLoops(this.directory)
    const keys = statusDocument(this.directory, loops.loops, loops.history, id, Date.now()).selected?.guard?.acceptable
    if (!keys?.length) return this.toast(false, "Ralph loop", `Nothing refused loop ${id}'s last claim of done.`)
    // Too many or too long to name in a request: the plugin takes "all of it" (what refuses when it takes it).
    const named = keys.length <= MAX_ACCEPT_KEYS && keys.every((k) => k.length <= MAX_KEY_CHARS) ? keys : []
    this.api.ui.dialog.replace(() =>
      createComponent(this.api.ui.DialogConfirm, {
        title: "Accept what refused the last claim?",
        message:
          `The loop's next claim of done is judged with these accepted (its evidence says "accepted by you"):\n` +
          keys.map((k) => `- ${k}`).join("\n"),
        onConfirm: () => {
          this.api.ui.dialog.clear()
          void this.send({ verb: "accept", keys: named }, id)
        },
        onCancel: () => this.api.ui.dialog.clear(),
      }),
    )
  }

  private confirmRollback(loop: string, checkpoint: number, title: string) {
    this.api.ui.dialog.replace(() =>
      createComponent(this.api.ui.DialogConfirm, {
        title: "Roll back?",
        message:
          `Put the work tree back to checkpoint ${title}? The loop is paused first; the present work tree ` +
          `is saved as a checkpoint of its own.`,
        onConfirm: () => {
          this.api.ui.dialog.clear()
          void this.send({ verb: "rollback", checkpoint }, loop)
        },
        onCancel: () => this.api.ui.dialog.clear(),
      }),
    )
  }
}
