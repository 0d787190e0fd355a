// What `ralph-loop run` needs of an OpenCode server it drives from outside, over HTTP: the other side
// of the host (the loop's own port is port.ts, inside the server). src/opencode/server.ts is the
// OpenCode adapter; the data shapes are the SDK's (its v2 client, which 1.18 servers speak).
import type { Event, Message, Part, PermissionRequest, QuestionRequest } from "@opencode-ai/sdk/v2"

export type PermissionReply = "once" | "reject"

export interface ServerEventOptions {
  signal: AbortSignal
  /** The stream dropped; the client reconnects it on its own. */
  dropped: () => void
}

export interface HostServer {
  /** The names of the server's slash commands (the plugin's /ralph among them once it loaded). */
  commandNames(): Promise<string[]>
  /** A new session, or the server's error answer. */
  createSession(title: string): Promise<{ id: string } | { error: unknown }>
  /** Runs a slash command; resolves when its turn has ended, with its error described (never rejects). */
  runCommand(sessionID: string, command: string, args: string, model?: string): Promise<string | undefined>
  /** The session's parent (a subagent's), if it has one or could not be read. */
  parentOf(sessionID: string): Promise<string | undefined>
  /** Answers a permission request; resolves with the server's error answer, if any. */
  replyPermission(requestID: string, reply: PermissionReply, message?: string): Promise<unknown>
  /** Rejects a question; resolves with the server's error answer, if any. */
  rejectQuestion(requestID: string): Promise<unknown>
  /** The requests that wait for an answer now. */
  pendingRequests(): Promise<{ permissions: PermissionRequest[]; questions: QuestionRequest[] }>
  /** The server's event stream, open once this resolves. */
  events(options: ServerEventOptions): Promise<AsyncIterator<Event>>
  /** The session's messages with their parts. */
  messages(sessionID: string): Promise<Array<{ info: Message; parts: Part[] }>>
}
