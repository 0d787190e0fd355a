// `ralph-loop run`'s own `opencode serve`: a server that exits before it listens is started once
// more, since OpenCode's first start on a fresh data folder can lose a race with another start's
// database migration (what it then prints is in test/fixtures/opencode/serve-migration-race.txt,
// recorded from the real one by scripts/make-opencode-fixtures.mjs). The stand-in here prints
// that, or listens and answers as `opencode serve` does.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { HostError, startHost } from "../../src/cli/run/host.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const FIXTURE = join(import.meta.dirname, "..", "fixtures", "opencode", "serve-migration-race.txt")

const SERVER = `
const port = Number(process.argv[process.argv.indexOf("--port") + 1])
require("node:http").createServer((req, res) => res.end("{}")).listen(port, "127.0.0.1", () => console.log("opencode server listening on http://127.0.0.1:" + port))
`

/** A stand-in for `opencode`: the first `lost` starts print what the real one did when it lost the race, and exit 1; later ones serve. */
function standIn(lost: number): {
  bin: string
  env: NodeJS.ProcessEnv
  starts: () => number
  leftChild: () => number | undefined
} {
  const dir = tempDir("ralph-run-host-")
  const counter = join(dir, "starts")
  const child = join(dir, "child")
  writeFileSync(join(dir, "server.cjs"), SERVER)
  const bin = join(dir, "opencode")
  writeFileSync(
    bin,
    `#!/bin/sh
echo x >> "${counter}"
if [ "$(wc -l < "${counter}")" -le ${lost} ]; then sleep 120 & echo $! > "${child}"; cat "${FIXTURE}"; exit 1; fi
exec "${process.execPath}" "${join(dir, "server.cjs")}" "$@"
`,
  )
  chmodSync(bin, 0o755)
  return {
    bin,
    env: { PATH: process.env.PATH },
    starts: () => (existsSync(counter) ? readFileSync(counter, "utf8").split("\n").filter(Boolean).length : 0),
    leftChild: () => (existsSync(child) ? Number(readFileSync(child, "utf8")) : undefined),
  }
}

const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z"
  } catch {
    return false
  }
}

/** Resolves once `pid` is gone (a killed process is reaped by init a moment later). */
async function gone(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000
  while (running(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, "SIGKILL") // ours: it must not outlive the test
      throw new Error(`process ${pid}, started in the server's group, is still running`)
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe("the run's own OpenCode server", () => {
  it("lost the race of a first start on a fresh data folder (exit 1 before it listened): started once more, and served", async () => {
    const fake = standIn(1)
    const host = await startHost({ bin: fake.bin, project: tempDir("ralph-run-project-"), env: fake.env })
    try {
      expect(fake.starts()).toBe(2)
      expect(host.started).toBe(true)
      expect(await (await fetch(`${host.url}/config`)).text()).toBe("{}")
    } finally {
      await host.stop()
    }
    expect(await host.exited).toMatch(/^(ended by SIG|exited with code)/)
    // What the lost start left in its process group went with it.
    await gone(fake.leftChild() as number)
  })

  it("exits before it listens each time: started twice, then the runner fails with what it printed", async () => {
    const fake = standIn(2)
    const failed = await startHost({ bin: fake.bin, project: tempDir("ralph-run-project-"), env: fake.env }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failed).toBeInstanceOf(HostError)
    expect(String((failed as Error).message)).toContain("serve exited with code 1 before it listened")
    expect(String((failed as Error).message)).toContain(readFileSync(FIXTURE, "utf8").trim().split("\n").at(-1))
    expect(fake.starts()).toBe(2)
    await gone(fake.leftChild() as number)
  })
})
