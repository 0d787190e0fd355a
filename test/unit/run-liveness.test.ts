// --attach: the runner's watch of a server it did not start (liveness.ts). A stand-in answers
// GET /global/health as OpenCode does; once it stops listening, the watch says the server is gone.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { watchLiveness } from "../../src/cli/run/liveness.js"

function healthServer(): Promise<{ server: Server; url: string; asked: () => number }> {
  let asked = 0
  const server = createServer((req, res) => {
    if (req.url === "/global/health") asked += 1
    res.writeHead(req.url === "/global/health" ? 200 : 404, { "content-type": "application/json" })
    res.end('{"healthy":true}')
  })
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked: () => asked }),
    ),
  )
}

describe("the liveness of an --attach server", () => {
  it("a server that answers is alive; once it stops listening, the watch says so (refused, twice in a row)", async () => {
    const { server, url, asked } = await healthServer()
    const watch = watchLiveness(url)
    let gone: string | undefined
    void watch.gone.then((how) => (gone = how))
    try {
      // Asked at once (as when the event stream drops), answered: nothing is said.
      watch.check()
      await new Promise<void>((resolve) => {
        const look = setInterval(() => {
          if (asked() >= 2) {
            clearInterval(look)
            resolve()
          }
        }, 20)
      })
      expect(gone).toBeUndefined()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      expect(await watch.gone).toMatch(/^stopped answering \(.+\)$/)
    } finally {
      watch.stop()
      server.closeAllConnections()
      server.close()
    }
  })
})
