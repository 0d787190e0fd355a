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
    return this.until(() => this.events.find(predicate), what, timeoutMs)
  }

  /** Resolves with the events `predicate` matches once there are `count` of them. */
  async waitForCount(
    predicate: EventPredicate,
    count: number,
    what: string,
    timeoutMs = 30_000,
  ): Promise<RuntimeEvent[]> {
    return this.until(
      () => {
        const found = this.events.filter(predicate)
        return found.length >= count ? found : undefined
      },
      what,
      timeoutMs,
    )
  }

  /** Resolves with what `found` returns, checked at once and at each event; rejects after `timeoutMs`. */
  private until<T>(found: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    const now = found()
    if (now !== undefined) return Promise.resolve(now)
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = found()
        if (value === undefined) return
        cleanup()
        resolve(value)
      }
      const timer = setTimeout(() => {
        cleanup()
        const seen = this.events
          .map((e) => e.type)
          .filter((t) => !t.startsWith("message.part"))
          .slice(-40)
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
