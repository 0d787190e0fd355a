// Records every event one OpenCode instance publishes (the SSE stream of one project directory),
// so tests can wait on and count what really happened.
import type { OpencodeClient } from "@opencode-ai/sdk"

/** Events as they arrive at runtime: v2-shaped, and wider than the v1 union the SDK types. */
export interface RuntimeEvent {
  type: string
  properties: Record<string, any>
  at: number
}

export type EventPredicate = (event: RuntimeEvent) => boolean

export class EventLog {
  readonly events: RuntimeEvent[] = []
  private readonly waiters = new Set<() => void>()
  private readonly controller = new AbortController()
  private connected!: Promise<void>

  static async attach(client: OpencodeClient): Promise<EventLog> {
    const log = new EventLog()
    log.connected = new Promise<void>((resolve) => {
      void log.pump(client, resolve)
    })
    await log.connected
    return log
  }

  private async pump(client: OpencodeClient, onConnected: () => void): Promise<void> {
    try {
      const subscription = await client.event.subscribe({ signal: this.controller.signal })
      for await (const raw of subscription.stream as AsyncIterable<{ type: string; properties: Record<string, any> }>) {
        if (raw.type === "server.connected") onConnected()
        this.events.push({ type: raw.type, properties: raw.properties ?? {}, at: Date.now() })
        for (const waiter of [...this.waiters]) waiter()
      }
    } catch (error) {
      if (!this.controller.signal.aborted) throw error
    } finally {
      onConnected()
    }
  }

  of(type: string, predicate: EventPredicate = () => true): RuntimeEvent[] {
    return this.events.filter((e) => e.type === type && predicate(e))
  }

  toasts(): Array<{ title?: string; message: string; variant: string }> {
    return this.of("tui.toast.show").map((e) => e.properties as { title?: string; message: string; variant: string })
  }

  async waitFor(predicate: EventPredicate, what: string, timeoutMs = 30_000): Promise<RuntimeEvent> {
    const found = () => this.events.find(predicate)
    const now = found()
    if (now) return now
    return new Promise<RuntimeEvent>((resolve, reject) => {
      const check = () => {
        const event = found()
        if (!event) return
        cleanup()
        resolve(event)
      }
      const timer = setTimeout(() => {
        cleanup()
        const seen = this.events.map((e) => e.type).filter((t) => !t.startsWith("message.part")).slice(-40)
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last events: ${seen.join(", ")}`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        this.waiters.delete(check)
      }
      this.waiters.add(check)
    })
  }

  close(): void {
    this.controller.abort()
  }
}
