// What the runner takes from OpenCode's event stream (the loop's own course comes from its files,
// follow.ts): permission requests and questions, answered at once; with --verbose, the model's
// texts; and the toasts, which say why a /ralph started nothing. The SDK reconnects a dropped
// stream; each (re)connect answers what was asked meanwhile.
import type { Event, OpencodeClient, Part } from "@opencode-ai/sdk/v2"
import type { RunEventBody } from "./events.js"
import type { PermissionDesk } from "./permissions.js"

export interface Toast {
  title: string
  message: string
}

export class ServerEvents {
  readonly toasts: Toast[] = []
  private readonly texts = new Set<string>()
  /** Assistant messages that are OpenCode's summaries (the loop's handoffs), not the model's work. */
  private readonly summaries = new Set<string>()
  private readonly controller = new AbortController()

  constructor(
    private readonly client: OpencodeClient,
    private readonly desk: PermissionDesk,
    private readonly verbose: boolean,
    /** Whether a session is one of the run's (for --verbose texts). */
    private readonly isRunSession: (sessionID: string) => boolean,
    private readonly emit: (event: RunEventBody) => void,
    /** The stream dropped (the SDK reconnects it): is the server still there? */
    private readonly dropped: () => void = () => undefined,
  ) {}

  /** Subscribes; resolves once the stream is open (its first event, server.connected, is handled). */
  async start(): Promise<void> {
    const { stream } = await this.client.event.subscribe(undefined, {
      signal: this.controller.signal,
      sseDefaultRetryDelay: 500,
      sseMaxRetryDelay: 3_000,
      onSseError: () => {
        if (!this.controller.signal.aborted) this.dropped()
      },
    })
    const iterator = stream[Symbol.asyncIterator]()
    const first = await iterator.next()
    if (!first.done) this.handle(first.value as Event)
    void (async () => {
      try {
        for (;;) {
          const next = await iterator.next()
          if (next.done) return
          this.handle(next.value as Event)
        }
      } catch {
        // stopped, or the server went away: the runner sees that on its own
      }
    })()
  }

  stop(): void {
    this.controller.abort()
  }

  private handle(event: Event): void {
    // Answering and reporting run beside the stream: an answer must never hold up the next event.
    const answer = (work: Promise<void>) =>
      void work.catch((error: unknown) =>
        this.emit({
          type: "error",
          message: `answering OpenCode: ${error instanceof Error ? error.message : String(error)}`,
        }),
      )
    switch (event.type) {
      case "server.connected":
        return answer(this.desk.pending())
      case "permission.asked":
        return answer(this.desk.asked(event.properties))
      case "question.asked":
        return answer(this.desk.question(event.properties))
      case "tui.toast.show":
        this.toasts.push({ title: event.properties.title ?? "", message: event.properties.message })
        return
      case "message.updated": {
        const info = event.properties.info
        if (info.role === "assistant" && (info.summary || info.mode === "compaction")) this.summaries.add(info.id)
        return
      }
      case "message.part.updated":
        return this.offer(event.properties.part)
    }
  }

  /**
   * --verbose: the texts of these sessions that the stream has not brought yet. The loop's end comes
   * from its files, the texts from the stream, so a busy machine can see the end first; the
   * messages as stored are complete once the turn that ended the loop is.
   */
  async flush(sessionIDs: string[]): Promise<void> {
    if (!this.verbose) return
    for (const sessionID of sessionIDs) {
      const messages = (await this.client.session.messages({ sessionID })).data ?? []
      for (const { info, parts } of messages) {
        if (info.role !== "assistant") continue
        if (info.summary || info.mode === "compaction") this.summaries.add(info.id)
        for (const part of parts) this.offer(part)
      }
    }
  }

  private offer(part: Part): void {
    if (!this.verbose || part.type !== "text" || part.synthetic || part.ignored || part.time?.end === undefined) return
    if (
      this.texts.has(part.id) ||
      this.summaries.has(part.messageID) ||
      !this.isRunSession(part.sessionID) ||
      !part.text.trim()
    )
      return
    this.texts.add(part.id)
    this.emit({ type: "text", session: part.sessionID, text: part.text.trim() })
  }
}
