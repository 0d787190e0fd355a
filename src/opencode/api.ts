// The SDK calls the loop makes, typed and unwrapped: each returns its data or throws an
// OpencodeCallError naming the call. `toast` and `log` never throw (they only inform).
import type { PluginInput } from "@opencode-ai/plugin"
import type { EventTuiToastShow, Session, Todo } from "@opencode-ai/sdk"
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

type Result<T> = { data?: T; error?: unknown }

async function unwrap<T>(call: string, request: Promise<Result<T>>): Promise<T> {
  const { data, error } = await request
  if (error !== undefined || data === undefined) throw new OpencodeCallError(call, error)
  return data
}

export class OpencodeApi {
  constructor(
    private readonly client: Client,
    private readonly debug = false,
  ) {}

  messages(sessionID: string): Promise<MessageWithParts[]> {
    return unwrap("session.messages", this.client.session.messages({ path: { id: sessionID } }))
  }

  session(sessionID: string): Promise<Session> {
    return unwrap("session.get", this.client.session.get({ path: { id: sessionID } }))
  }

  todos(sessionID: string): Promise<Todo[]> {
    return unwrap("session.todo", this.client.session.todo({ path: { id: sessionID } }))
  }

  /** Compaction; resolves when the summary has been written. */
  async summarize(sessionID: string, model: { providerID: string; modelID: string }): Promise<void> {
    await unwrap("session.summarize", this.client.session.summarize({ path: { id: sessionID }, body: model }))
  }

  createSession(title: string): Promise<Session> {
    return unwrap("session.create", this.client.session.create({ body: { title } }))
  }

  /** Points the TUI at `sessionID`. The v1 client has no selectSession; the server accepts the event. */
  async selectSession(sessionID: string): Promise<void> {
    const event = { type: "tui.session.select", properties: { sessionID } } as unknown as EventTuiToastShow
    await unwrap("tui.session.select", this.client.tui.publish({ body: event }))
  }

  /** Queues a prompt and returns at once (HTTP 204); the turn runs in the background. */
  async promptAsync(sessionID: string, input: PromptInput): Promise<void> {
    const { error, response } = await this.client.session.promptAsync({
      path: { id: sessionID },
      body: {
        parts: [{ type: "text", text: input.text }],
        ...(input.agent ? { agent: input.agent } : {}),
        ...(input.model ? { model: input.model } : {}),
      },
    })
    if (error !== undefined || !response.ok) throw new OpencodeCallError("session.promptAsync", error ?? response.status)
  }

  async deleteSession(sessionID: string): Promise<void> {
    await unwrap("session.delete", this.client.session.delete({ path: { id: sessionID } }))
  }

  /** True when OpenCode lists no running turn for the session. */
  async isIdle(sessionID: string): Promise<boolean> {
    const statuses = await unwrap("session.status", this.client.session.status())
    const status = statuses[sessionID]
    return status === undefined || status.type === "idle"
  }

  toast(variant: ToastVariant, title: string, message: string, duration?: number): void {
    this.client.tui
      .showToast({ body: { title, message, variant, ...(duration ? { duration } : {}) } })
      .catch(() => undefined)
  }

  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void {
    if (level === "debug" && !this.debug) return
    this.client.app
      .log({ body: { service: "ralph-loop", level, message, ...(extra ? { extra } : {}) } })
      .catch(() => undefined)
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
