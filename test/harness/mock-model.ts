// A scripted OpenAI-compatible chat model on 127.0.0.1, for driving the real OpenCode offline.
// Each project gets its own scope (its own base URL), so one mock serves many tests without
// their scripts or request logs touching.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export type RequestKind = "main" | "compaction" | "title"

export interface ToolCall {
  name: string
  args: Record<string, unknown>
}

export interface Reply {
  /** Assistant text, streamed in a few chunks. */
  text?: string
  /** Tool calls the model makes (the turn then goes on with the tool result). */
  toolCalls?: ToolCall[]
  /** Answer with an HTTP error instead of a completion. */
  error?: { status: number; message: string; headers?: Record<string, string> }
  /** Wait before the first byte. */
  delayMs?: number
  /**
   * Stream the first chunk, then send nothing more until this settles: a reply still streaming
   * for as long as the test needs (to press Esc, or to kill OpenCode, at a moment it knows).
   */
  holdAfterFirstChunk?: Promise<unknown>
  usage?: { prompt_tokens: number; completion_tokens: number }
  /** finish_reason to report (default "stop", or "tool_calls" with tool calls); "length" = output cut off. */
  finish?: string
}

export interface MockRequest {
  scope: string
  kind: RequestKind
  /** Position among the requests of this kind in this scope, from 0. */
  index: number
  system: string
  /** Text of the last user message. */
  lastUser: string
  /** Role of the last message: "tool" when the model is called back with a tool's result. */
  lastRole: string
  /** The whole request body as OpenCode sent it. */
  body: ChatBody
  bytes: number
  at: number
  /** HTTP status of the answer (an error reply's, or 200). */
  status?: number
  /** When the answer was fully sent (or its connection was gone): the end of the model's turn step. */
  endedAt?: number
  /** The session OpenCode made the request for (its `x-session-id` header). */
  session?: string
  /** The connection was gone before the answer was fully written. */
  cut?: boolean
}

export type Responder = (request: MockRequest) => Reply
/** Replies in order; once the list is used up its last entry repeats. */
export type ReplySource = Reply[] | Responder

export interface Script {
  main?: ReplySource
  compaction?: ReplySource
}

interface ChatMessage {
  role: string
  content?: string | Array<{ type: string; text?: string }> | null
  tool_calls?: unknown[]
}

interface ChatBody {
  model?: string
  messages?: ChatMessage[]
  tools?: unknown[]
  stream?: boolean
}

const DEFAULT_REPLY: Record<RequestKind, Reply> = {
  main: { text: "ok" },
  compaction: { text: "Summary: the work so far (mock)." },
  title: { text: "Mock title" },
}

/** A promise the test settles when it is ready: for `holdAfterFirstChunk`. */
export interface Gate {
  readonly opened: Promise<void>
  open(): void
}

export function gate(): Gate {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

export function messageText(message: ChatMessage | undefined): string {
  if (!message?.content) return ""
  if (typeof message.content === "string") return message.content
  return message.content.map((part) => part.text ?? "").join("")
}

function classify(system: string, lastUser: string): RequestKind {
  if (/title generator/i.test(system)) return "title"
  if (/^You are a context summarization agent/m.test(system) || /Create a new anchored summary/.test(lastUser))
    return "compaction"
  return "main"
}

function pick(source: ReplySource | undefined, request: MockRequest): Reply {
  if (!source) return DEFAULT_REPLY[request.kind]
  if (typeof source === "function") return source(request)
  return source[Math.min(request.index, source.length - 1)] ?? DEFAULT_REPLY[request.kind]
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class MockModel {
  private readonly scripts = new Map<string, Script>()
  private readonly log: MockRequest[] = []
  private readonly waiters = new Set<() => void>()
  private readonly listeners = new Set<(request: MockRequest, reply: Reply) => void>()

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<MockModel> {
    let model: MockModel | undefined
    const server = createServer((req, res) => {
      model?.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: String(error) } }))
      })
    })
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => resolve())
    })
    model = new MockModel(server, (server.address() as AddressInfo).port)
    return model
  }

  /** The OpenAI base URL a project's provider config points at. */
  baseURL(scope: string): string {
    return `http://127.0.0.1:${this.port}/s/${encodeURIComponent(scope)}/v1`
  }

  script(scope: string, script: Script): void {
    this.scripts.set(scope, script)
  }

  requests(scope: string, kind?: RequestKind): MockRequest[] {
    return this.log.filter((r) => r.scope === scope && (kind === undefined || r.kind === kind))
  }

  /** Resolves once `predicate` holds over the request log, or rejects after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs = 20_000, what = "mock model requests"): Promise<void> {
    if (predicate()) return
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!predicate()) return
        cleanup()
        resolve()
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        this.waiters.delete(check)
      }
      this.waiters.add(check)
    })
  }

  /** Calls `listener` for every request, with the reply it gets. */
  onRequest(listener: (request: MockRequest, reply: Reply) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const match = /^\/s\/([^/]+)\/v1\/(.*)$/.exec(url.pathname)
    if (!match) {
      res.writeHead(404).end()
      return
    }
    const scope = decodeURIComponent(match[1] ?? "")
    const route = match[2]
    if (req.method === "GET" && route === "models") {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ object: "list", data: [{ id: "mock-model", object: "model" }] }))
      return
    }
    if (req.method !== "POST" || route !== "chat/completions") {
      res.writeHead(404).end()
      return
    }
    const raw = await readBody(req)
    const body = JSON.parse(raw) as ChatBody
    const messages = body.messages ?? []
    const system = messages
      .filter((m) => m.role === "system")
      .map(messageText)
      .join("\n")
    const lastUser = messageText([...messages].reverse().find((m) => m.role === "user"))
    const lastRole = messages.at(-1)?.role ?? ""
    const kind = classify(system, lastUser)
    const request: MockRequest = {
      scope,
      kind,
      index: this.requests(scope, kind).length,
      system,
      lastUser,
      lastRole,
      body,
      bytes: Buffer.byteLength(raw),
      at: Date.now(),
      ...(typeof req.headers["x-session-id"] === "string" ? { session: req.headers["x-session-id"] } : {}),
    }
    this.log.push(request)
    for (const waiter of [...this.waiters]) waiter()

    const reply = pick(kind === "title" ? undefined : this.scripts.get(scope)?.[kind], request)
    request.status = reply.error?.status ?? 200
    for (const listener of this.listeners) listener(request, reply)
    await respond(res, reply, body.model ?? "mock-model")
    request.endedAt = Date.now()
    // The connection went before the whole answer was written: OpenCode saw a failed request.
    await new Promise<void>((done) => {
      if (res.writableFinished || res.destroyed) return done()
      res.once("finish", done)
      res.once("close", done)
    })
    if (!res.writableFinished) request.cut = true
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })
}

function chunks(text: string): string[] {
  if (text.length < 12) return [text]
  const third = Math.ceil(text.length / 3)
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)]
}

async function respond(res: ServerResponse, reply: Reply, model: string): Promise<void> {
  if (reply.delayMs) await sleep(reply.delayMs)
  if (reply.error) {
    res.writeHead(reply.error.status, { "content-type": "application/json", ...reply.error.headers })
    res.end(JSON.stringify({ error: { message: reply.error.message, type: "mock_error" } }))
    return
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  const id = `chatcmpl-${Date.now().toString(36)}`
  const created = Math.floor(Date.now() / 1000)
  const send = (delta: object, finish: string | null, extra: object = {}) =>
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
    )

  send({ role: "assistant", content: "" }, null)
  for (const [index, piece] of (reply.text ? chunks(reply.text) : []).entries()) {
    if (res.destroyed) return
    send({ content: piece }, null)
    if (index === 0 && reply.holdAfterFirstChunk) await reply.holdAfterFirstChunk.catch(() => undefined)
  }
  if (res.destroyed) return
  for (const [index, call] of (reply.toolCalls ?? []).entries())
    send(
      {
        tool_calls: [
          {
            index,
            id: `call_${index}_${Date.now().toString(36)}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          },
        ],
      },
      null,
    )
  const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20 }
  send({}, reply.finish ?? (reply.toolCalls?.length ? "tool_calls" : "stop"), {
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  })
  res.write("data: [DONE]\n\n")
  res.end()
}
