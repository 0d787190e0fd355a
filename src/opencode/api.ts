// The SDK calls the loop makes, typed and unwrapped: each returns its data or throws an
// OpencodeCallError naming the call. `toast` and `log` never throw (they only inform).
import type { PluginInput } from "@opencode-ai/plugin"
import type { EventTuiToastShow, Session, Todo } from "@opencode-ai/sdk"
import type { Faults } from "./faults.js"
import type { MessageWithParts } from "./read-turn.js"

export type Client = PluginInput["client"]
export type ToastVariant = EventTuiToastShow["properties"]["variant"]
export type LogLevel = "debug" | "info" | "warn" | "error"

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

type Result<T> = { data?: T; error?: unknown; response?: Response }

/** How long a call may take before the loop treats it as failed (summarize runs a model turn). */
const TIMEOUT_MS: Record<string, number> = { "session.summarize": 10 * 60_000 }
const DEFAULT_TIMEOUT_MS = 60_000

export class OpencodeApi {
  constructor(
    private readonly client: Client,
    private readonly debug = false,
    private readonly faults?: Faults,
  ) {}

  /**
   * One SDK call: unwrapped to its data, failed with an OpencodeCallError naming it on an error
   * answer, and on a timeout — a call that never answers must not leave a loop waiting for ever.
   */
  private async call<T>(name: string, send: () => Promise<Result<T>>, accept: (result: Result<T>) => boolean = (r) => r.error === undefined && r.data !== undefined): Promise<T> {
    const fault = this.faults?.take(name)
    if (fault === "throw") throw new OpencodeCallError(name, "injected throw")
    const request = fault === "error" ? Promise.resolve<Result<T>>({ error: { name: "InjectedFault", data: { message: "injected error" } } }) : fault === "timeout" ? new Promise<Result<T>>(() => undefined) : send()
    const timeoutMs = this.faults?.callTimeoutMs ?? TIMEOUT_MS[name] ?? DEFAULT_TIMEOUT_MS
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new OpencodeCallError(name, `no answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs)
    })
    try {
      const result = await Promise.race([request, timeout])
      if (!accept(result)) throw new OpencodeCallError(name, result.error ?? result.response?.status)
      return result.data as T
    } finally {
      clearTimeout(timer)
    }
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
      (error: unknown) => (error instanceof OpencodeCallError && /NotFound/i.test(JSON.stringify(error.detail)) ? false : undefined),
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

  /** Points the TUI at `sessionID`. The v1 client has no selectSession; the server accepts the event. */
  async selectSession(sessionID: string): Promise<void> {
    const event = { type: "tui.session.select", properties: { sessionID } } as unknown as EventTuiToastShow
    await this.call("tui.session.select", () => this.client.tui.publish({ body: event }))
  }

  /** Queues a prompt and returns at once (HTTP 204); the turn runs in the background. */
  async promptAsync(sessionID: string, input: PromptInput): Promise<void> {
    await this.call(
      "session.promptAsync",
      () =>
        this.client.session.promptAsync({
          path: { id: sessionID },
          body: {
            parts: [{ type: "text", text: input.text }],
            ...(input.agent ? { agent: input.agent } : {}),
            ...(input.model ? { model: input.model } : {}),
          },
        }),
      (r) => r.error === undefined && r.response?.ok === true,
    )
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
    this.call("tui.showToast", () => this.client.tui.showToast({ body: { title, message, variant, ...(duration ? { duration } : {}) } })).catch(() => undefined)
  }

  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void {
    if (level === "debug" && !this.debug) return
    this.call("app.log", () => this.client.app.log({ body: { service: "ralph-loop", level, message, ...(extra ? { extra } : {}) } })).catch(() => undefined)
  }
}

function describe(detail: unknown): string {
  if (detail instanceof Error) return detail.message
  if (typeof detail === "object" && detail !== null) {
    const named = detail as { name?: unknown; data?: { message?: unknown } }
    if (typeof named.data?.message === "string") return `${String(named.name ?? "error")}: ${named.data.message}`
    return JSON.stringify(detail).slice(0, 300)
  }
  return String(detail)
}
