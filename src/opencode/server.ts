// The OpenCode adapter of what `ralph-loop run` needs of a server it drives (src/host/server-port.ts):
// the SDK's v2 client, pointed at the server's URL and the project's directory.
import { createOpencodeClient, type Event, type OpencodeClient } from "@opencode-ai/sdk/v2"
import type { HostServer, PermissionReply, ServerEventOptions } from "../host/server-port.js"

export class OpencodeServer implements HostServer {
  private readonly client: OpencodeClient

  constructor(url: string, directory: string) {
    this.client = createOpencodeClient({ baseUrl: url, directory })
  }

  async commandNames(): Promise<string[]> {
    const commands = await this.client.command.list()
    return (commands.data ?? []).map((c) => c.name)
  }

  async createSession(title: string): Promise<{ id: string } | { error: unknown }> {
    const created = await this.client.session.create({ title })
    return created.data ? { id: created.data.id } : { error: created.error }
  }

  runCommand(sessionID: string, command: string, args: string, model?: string): Promise<string | undefined> {
    return this.client.session.command({ sessionID, command, arguments: args, ...(model ? { model } : {}) }).then(
      ({ error }) => (error ? JSON.stringify(error) : undefined),
      (error: unknown) => String(error),
    )
  }

  async parentOf(sessionID: string): Promise<string | undefined> {
    return (await this.client.session.get({ sessionID })).data?.parentID
  }

  async replyPermission(requestID: string, reply: PermissionReply, message?: string): Promise<unknown> {
    const answer = { requestID, reply, ...(message !== undefined ? { message } : {}) }
    const { error } = await this.client.permission.reply(answer)
    return error
  }

  async rejectQuestion(requestID: string): Promise<unknown> {
    const { error } = await this.client.question.reject({ requestID })
    return error
  }

  async pendingRequests(): Promise<Awaited<ReturnType<HostServer["pendingRequests"]>>> {
    const [permissions, questions] = await Promise.all([this.client.permission.list(), this.client.question.list()])
    return { permissions: permissions.data ?? [], questions: questions.data ?? [] }
  }

  async events({ signal, dropped }: ServerEventOptions): Promise<AsyncIterator<Event>> {
    const { stream } = await this.client.event.subscribe(undefined, {
      signal,
      sseDefaultRetryDelay: 500,
      sseMaxRetryDelay: 3_000,
      onSseError: () => {
        if (!signal.aborted) dropped()
      },
    })
    return stream[Symbol.asyncIterator]() as AsyncIterator<Event>
  }

  async messages(sessionID: string): Promise<Awaited<ReturnType<HostServer["messages"]>>> {
    return (await this.client.session.messages({ sessionID })).data ?? []
  }
}
