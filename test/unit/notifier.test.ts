// The notification's edge, against a real HTTP server on 127.0.0.1 and a stub notify-send on PATH:
// the webhook's POST, its timeout and retries; the desktop command found on PATH or not at all.
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { post, showOnDesktop } from "../../src/notify/notifier.js"
import { waitUntil } from "../harness/wait.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
// A receiver that answers is given time enough on a busy machine (a 300 ms limit made an answered
// POST time out and be sent again); only the test of a receiver that never answers uses a short one.
const FAST = { timeoutMs: 30_000, retries: 3, retryDelayMs: 10 }
const NO_ANSWER = { ...FAST, timeoutMs: 300 }

const servers: Array<{ close(): void; closeAllConnections(): void }> = []
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

/** A server answering each POST with `answer`; the bodies it got, in order. */
async function receiver(
  answer: (req: IncomingMessage, res: ServerResponse, attempt: number) => void,
): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      answer(req, res, bodies.length)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/secret-path`, bodies }
}

describe("the webhook's POST", () => {
  it("sends the payload as JSON once when it is taken", async () => {
    const hook = await receiver((req, res) =>
      res.writeHead(req.headers["content-type"] === "application/json" ? 200 : 415).end(),
    )
    expect(await post(hook.url, { event: "ended" }, FAST)).toBeUndefined()
    expect(hook.bodies).toEqual([{ event: "ended" }])
  })

  it("retries a 5xx three times, then says what failed — by the webhook's origin only", async () => {
    const hook = await receiver((_req, res) => res.writeHead(500).end())
    const problem = await post(hook.url, { n: 1 }, FAST)
    expect(hook.bodies).toHaveLength(4)
    expect(problem).toMatch(/^the webhook http:\/\/127\.0\.0\.1:\d+\/… failed: HTTP 500$/)
  })

  it("a URL with credentials (which fetch refuses, naming the URL): the failure names neither them nor the path", async () => {
    const hook = await receiver((_req, res) => res.writeHead(200).end())
    const problem = await post(hook.url.replace("http://", "http://user:p4ssw0rd@"), {}, FAST)
    expect(problem).toMatch(/^the webhook http:\/\/127\.0\.0\.1:\d+\/… failed: /)
    expect(problem).not.toMatch(/p4ssw0rd|user|secret-path/)
  })

  it("a retry that succeeds ends it", async () => {
    const hook = await receiver((_req, res, attempt) => res.writeHead(attempt < 3 ? 503 : 204).end())
    expect(await post(hook.url, {}, FAST)).toBeUndefined()
    expect(hook.bodies).toHaveLength(3)
  })

  it("a refusal (404) is not asked again", async () => {
    const hook = await receiver((_req, res) => res.writeHead(404).end())
    expect(await post(hook.url, {}, FAST)).toMatch(/HTTP 404$/)
    expect(hook.bodies).toHaveLength(1)
  })

  it("an attempt that gets no answer in time is given up and retried", async () => {
    const hook = await receiver(() => undefined) // never answers
    expect(await post(hook.url, {}, NO_ANSWER)).toMatch(/failed: TimeoutError/)
    // The last attempt's body may reach the receiver after the sender gave up on it.
    await waitUntil(() => hook.bodies.length >= 4, "4 attempts received")
    expect(hook.bodies).toHaveLength(4)
  })
})

describe("the desktop notification (as on Linux: notify-send on PATH)", () => {
  const PATH = process.env.PATH
  afterEach(() => {
    process.env.PATH = PATH
  })

  /** A notify-send doing `script(its folder)`, alone on PATH. */
  function stub(script: (dir: string) => string): string {
    const dir = tempDir("ralph-notify-send-")
    writeFileSync(join(dir, "notify-send"), `#!/bin/sh\n${script(dir)}\n`)
    chmodSync(join(dir, "notify-send"), 0o755)
    process.env.PATH = dir
    return dir
  }

  it("runs the notify-send found on PATH with the title and the line", async () => {
    const dir = stub((here) => `printf '%s|%s' "$1" "$2" > "${here}/called"`)
    expect(
      await showOnDesktop({ title: "Ralph · ended (completed)", message: "build it (2 iterations)" }, "linux"),
    ).toBeUndefined()
    expect(readFileSync(join(dir, "called"), "utf8")).toBe("Ralph · ended (completed)|build it (2 iterations)")
  })

  it("none on PATH: nothing, and no error", async () => {
    process.env.PATH = tempDir("ralph-no-notify-")
    expect(await showOnDesktop({ title: "t", message: "m" }, "linux")).toBeUndefined()
  })

  it("one that fails is reported", async () => {
    stub(() => "exit 3")
    expect(await showOnDesktop({ title: "t", message: "m" }, "linux")).toBe(
      "the desktop notification (notify-send) ended with exit code 3",
    )
  })
})
