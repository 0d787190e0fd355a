// A webhook receiver for the e2e tests, on 127.0.0.1 and a free port: every POST's JSON recorded by
// path; a path listed in `failing` answers 500.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { waitUntil } from "./wait.js"

export interface Received {
  path: string
  body: Record<string, unknown>
}

export class Hook {
  readonly received: Received[] = []
  readonly failing = new Set<string>()
  private constructor(private readonly server: Server) {}

  static async start(): Promise<Hook> {
    let hook: Hook | undefined
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const path = req.url ?? "/"
        hook?.received.push({
          path,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
        })
        res.writeHead(hook?.failing.has(path) ? 500 : 200).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    hook = new Hook(server)
    return hook
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`
  }

  at(path: string): Array<Record<string, unknown>> {
    return this.received.filter((r) => r.path === path).map((r) => r.body)
  }

  waitFor(path: string, count: number): Promise<Array<Record<string, unknown>>> {
    return waitUntil(
      () => this.at(path).length >= count && this.at(path),
      `${count} POSTs to ${path}`,
      30_000,
      () => JSON.stringify(this.at(path)),
    )
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
