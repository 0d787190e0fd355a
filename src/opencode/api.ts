// The SDK calls the loop makes, typed and unwrapped: each returns its data or throws an
// OpencodeCallError naming the call. `toast` and `log` never throw (they only inform).
import type { PluginInput } from "@opencode-ai/plugin"
import type { AppLogData, EventTuiToastShow, Session, Todo, TuiPublishData } from "@opencode-ai/sdk"
import type { EventTuiSessionSelect } from "@opencode-ai/sdk/v2"
import { isReportedError, parseError } from "../host/error.js"
import type { Faults } from "../host/faults.js"
import type { MessageWithParts } from "../loop/read-turn.js"

export type Client = PluginInput["client"]
export type ToastVariant = EventTuiToastShow["properties"]["variant"]
export type LogLevel = NonNullable<AppLogData["body"]>["level"]

export interface PromptInput {
  text: string
  agent?: string | undefined
  model?: { providerID: string; modelID: string } | undefined
}

export class OpencodeCallError extends Error {
  constructor(
    readonly call: string,
    readonly detail: unknown,
  ) {
    super(`${call} failed: ${describe(detail)}`)
    this.name = "OpencodeCallError"
  }
}

/**
 * What every SDK call resolves to (the client's default "fields" style): its data or its error, and the HTTP response.
 */
interface Answer {
  data?: unknown
  error?: unknown
  response: Response
}

/** How long a call may take before the loop treats it as failed (summarize runs a model turn). */
const TIMEOUT_MS: Record<string, number> = { "session.summarize": 10 * 60_000, "session.prompt": 10 * 60_000 }
const DEFAULT_TIMEOUT_MS = 60_000

export class OpencodeApi {
  constructor(
    private readonly client: Client,
    private readonly debug = false,
    private readonly faults?: Faults,
    /** Where the user's TUI is: a worktree loop's notices go to the project it was started from. */
    private readonly tuiDirectory?: string,
  ) {}

  /**
   * One SDK call, its answer as the SDK types it: failed with an OpencodeCallError naming the call
   * on an error answer, and on a timeout — a call that never answers must not leave a loop waiting for ever.
   */
  private async answer<A extends Answer>(name: string, send: () => Promise<A>): Promise<A> {
    const fault = this.faults?.take(name)
    if (fault === "throw") throw new OpencodeCallError(name, "injected throw")
    if (fault === "error")
      throw new OpencodeCallError(name, { name: "InjectedFault", data: { message: "injected error" } })
    const request = fault === "timeout" ? new Promise<never>(() => undefined) : send()
    const timeoutMs = this.faults?.callTimeoutMs ?? TIMEOUT_MS[name] ?? DEFAULT_TIMEOUT_MS
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new OpencodeCallError(name, `no answer within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      )
    })
    try {
      const answer = await Promise.race([request, timeout])
      if (answer.error !== undefined || !answer.response.ok)
        throw new OpencodeCallError(name, answer.error ?? answer.response.status)
      return answer
    } finally {
      clearTimeout(timer)
    }
  }

  /** One SDK call that answers with data: the data, or an OpencodeCallError. */
  private async call<A extends Answer>(name: string, send: () => Promise<A>): Promise<NonNullable<A["data"]>> {
    const { data, response } = await this.answer(name, send)
    if (data === undefined || data === null)
      throw new OpencodeCallError(name, `no data in the answer (HTTP ${response.status})`)
    return data
  }

  messages(sessionID: string): Promise<MessageWithParts[]> {
    return this.call("session.messages", () => this.client.session.messages({ path: { id: sessionID } }))
  }

  session(sessionID: string): Promise<Session> {
    return this.call("session.get", () => this.client.session.get({ path: { id: sessionID } }))
  }

  /** Whether OpenCode still has the session; undefined when it could not say. */
  sessionExists(sessionID: string): Promise<boolean | undefined> {
    return this.session(sessionID).then(
      () => true,
      (error: unknown) =>
        error instanceof OpencodeCallError && /NotFound/i.test(JSON.stringify(error.detail)) ? false : undefined,
    )
  }

  /** The sessions of the project. */
  sessions(): Promise<Session[]> {
    return this.call("session.list", () => this.client.session.list())
  }

  todos(sessionID: string): Promise<Todo[]> {
    return this.call("session.todo", () => this.client.session.todo({ path: { id: sessionID } }))
  }

  /** Compaction; resolves when the summary has been written. */
  async summarize(sessionID: string, model: { providerID: string; modelID: string }): Promise<void> {
    await this.call("session.summarize", () => this.client.session.summarize({ path: { id: sessionID }, body: model }))
  }

  createSession(title: string): Promise<Session> {
    return this.call("session.create", () => this.client.session.create({ body: { title } }))
  }

  /** A session of another directory: OpenCode runs it in that directory's own instance. */
  createSessionIn(directory: string, title: string): Promise<Session> {
    return this.call("session.create", () => this.client.session.create({ body: { title }, query: { directory } }))
  }

  /** Runs a slash command in a session of `directory`'s instance; resolves when its turn has ended. */
  async command(directory: string, sessionID: string, command: string, args: string): Promise<void> {
    await this.answer("session.command", () =>
      this.client.session.command({
        path: { id: sessionID },
        body: { command, arguments: args },
        query: { directory },
      }),
    )
  }

  /** Ends `directory`'s OpenCode instance (its plugins' dispose hooks run); the next call there starts a new one. */
  async disposeInstance(directory: string): Promise<void> {
    await this.answer("instance.dispose", () => this.client.instance.dispose({ query: { directory } }))
  }

  /** The sessions of `directory` (its OpenCode instance is started, and with it the plugin there, if none runs yet). */
  async sessionsIn(directory: string): Promise<Session[]> {
    return this.call("session.list", () => this.client.session.list({ query: { directory } }))
  }

  /**
   * Points the TUI at `sessionID`. The v1 client has no selectSession and its `publish` is typed
   * without this (v2) event; the server accepts it.
   */
  async selectSession(sessionID: string): Promise<void> {
    // A worktree loop never moves the user's TUI: the session they started it from shows its progress.
    if (this.tuiDirectory) return
    const event: EventTuiSessionSelect = { type: "tui.session.select", properties: { sessionID } }
    await this.call("tui.session.select", () =>
      this.client.tui.publish({ body: event as unknown as TuiPublishData["body"] }),
    )
  }

  /** Queues a prompt and returns at once (HTTP 204); the turn runs in the background. */
  async promptAsync(sessionID: string, input: PromptInput): Promise<void> {
    await this.answer("session.promptAsync", () =>
      this.client.session.promptAsync({
        path: { id: sessionID },
        body: {
          parts: [{ type: "text", text: input.text }],
          ...(input.agent ? { agent: input.agent } : {}),
          ...(input.model ? { model: input.model } : {}),
        },
      }),
    )
  }

  /**
   * Sends a prompt and waits for the whole reply (a review session's: the plugin's own, never a
   * loop's); resolves with the reply's own text.
   */
  async ask(sessionID: string, input: PromptInput): Promise<string> {
    const reply = await this.call("session.prompt", () =>
      this.client.session.prompt({
        path: { id: sessionID },
        body: {
          parts: [{ type: "text", text: input.text }],
          ...(input.agent ? { agent: input.agent } : {}),
          ...(input.model ? { model: input.model } : {}),
        },
      }),
    )
    if (reply.info.error) throw new OpencodeCallError("session.prompt", reply.info.error)
    return reply.parts.flatMap((p) => (p.type === "text" && !p.synthetic && !p.ignored ? [p.text] : [])).join("\n")
  }

  /** OpenCode's configured default model and small model ("provider/model"), when set. */
  async defaultModels(): Promise<{ model?: string | undefined; small?: string | undefined }> {
    const config = await this.call("config.get", () => this.client.config.get())
    return { model: config.model, small: config.small_model }
  }

  async setTitle(sessionID: string, title: string): Promise<void> {
    await this.call("session.update", () => this.client.session.update({ path: { id: sessionID }, body: { title } }))
  }

  async deleteSession(sessionID: string): Promise<void> {
    await this.call("session.delete", () => this.client.session.delete({ path: { id: sessionID } }))
  }

  /** True when OpenCode lists no running turn for the session. */
  async isIdle(sessionID: string): Promise<boolean> {
    const statuses = await this.call("session.status", () => this.client.session.status())
    const status = statuses[sessionID]
    return status === undefined || status.type === "idle"
  }

  toast(variant: ToastVariant, title: string, message: string, duration?: number): void {
    const body = { title, message, variant, ...(duration ? { duration } : {}) }
    const query = this.tuiDirectory ? { query: { directory: this.tuiDirectory } } : {}
    this.call("tui.showToast", () => this.client.tui.showToast({ body, ...query })).catch(() => undefined)
  }

  /**
   * OpenCode's log. Debug lines are written only with RALPH_LOOP_DEBUG=1 — and then at level info,
   * because OpenCode's log shows no debug lines unless its own level is lowered too.
   */
  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void {
    if (level === "debug" && !this.debug) return
    const shown = level === "debug" ? "info" : level
    this.call("app.log", () =>
      this.client.app.log({ body: { service: "ralph-loop", level: shown, message, ...(extra ? { extra } : {}) } }),
    ).catch(() => undefined)
  }
}

function describe(detail: unknown): string {
  if (detail instanceof Error) return detail.message
  if (isReportedError(detail)) {
    const error = parseError(detail)
    return `${error.name}: ${error.message}`
  }
  if (typeof detail === "object" && detail !== null) return JSON.stringify(detail).slice(0, 300)
  return String(detail)
}
