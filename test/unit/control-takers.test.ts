// The lease holder answers "interrupted" the requests another instance took, once that instance no
// longer runs — judged by its presence file (src/control/route-facts.ts stoppedTakers). On real
// files, two channels on one project: the holder, and an instance acting on its own loop's request.
// Without a presence file the holder answers the request "interrupted" while the other still acts on
// it (issue 47's suspicion, confirmed): so an instance must have its presence file whenever its
// channel can act (src/instance.ts starts the channel after the first beat, and keeps the file until
// the channel's requests are answered).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { ControlChannel, type ControlAct } from "../../src/control/channel.js"
import { controlFolder } from "../../src/control/client.js"
import { stoppedTakers } from "../../src/control/route-facts.js"
import { HOST } from "../../src/owner/heartbeat-files.js"
import { writePresence } from "../../src/owner/presence-files.js"
import { STATE_DIR } from "../../src/project/own-files.js"
import { gate } from "../harness/mock-model.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const channels: ControlChannel[] = []
afterEach(() => {
  for (const c of channels.splice(0)) c.dispose()
})

/** A request id as the client makes one. */
const ID = "1700000000001-0000abcd"
const resultFile = (dir: string, id: string) => join(controlFolder(dir), `${id}.result.json`)

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10))
}

/** The holder (takes nothing of B's, answers orphans) and B (takes its request, acts until `release`). */
async function twoInstances(dir: string) {
  const release = gate()
  let acting = false
  const slowAct: ControlAct = async () => {
    acting = true
    await release.opened
    return { ok: true, title: "Ralph · paused", message: "paused by B" }
  }
  const b = new ControlChannel(dir, slowAct, () => undefined, Date.now, undefined, {
    route: async () => ({ take: true, queue: undefined }),
    taker: "boot-b",
  })
  const holder = new ControlChannel(
    dir,
    async () => ({ ok: true, title: "holder", message: "" }),
    () => undefined,
    Date.now,
    undefined,
    {
      route: async () => ({ take: false, why: "B's loop" }),
      taker: "boot-a",
      orphans: async () => stoppedTakers(dir, Date.now()),
    },
  )
  channels.push(b, holder)
  return { b, holder, release, acting: () => acting }
}

function writeRequest(dir: string, id: string): void {
  mkdirSync(controlFolder(dir), { recursive: true })
  writeFileSync(join(controlFolder(dir), `${id}.request.json`), JSON.stringify({ id, verb: "pause", loop: "ses_b" }))
}

describe("the lease holder and another instance's taken request", () => {
  it("the taker without a presence file: the holder answers its request 'interrupted' while it still acts on it", async () => {
    const dir = tempDir("ralph-takers-")
    mkdirSync(join(dir, STATE_DIR), { recursive: true })
    const { b, holder, release, acting } = await twoInstances(dir)
    writeRequest(dir, ID)
    b.start()
    await waitFor(acting)
    holder.start()
    await waitFor(() => existsSync(resultFile(dir, ID)))
    expect(acting()).toBe(true)
    expect(JSON.parse(readFileSync(resultFile(dir, ID), "utf8"))).toMatchObject({
      ok: false,
      title: "Ralph · request interrupted",
    })
    release.open()
    await b.settled()
  })

  it("the taker with a fresh presence file: its request is left to it, and answered with what it did", async () => {
    const dir = tempDir("ralph-takers-")
    mkdirSync(join(dir, STATE_DIR), { recursive: true })
    await writePresence(dir, { pid: process.pid, host: HOST, boot: "boot-b", heartbeat: Date.now(), what: "OpenCode" })
    const { b, holder, release, acting } = await twoInstances(dir)
    writeRequest(dir, ID)
    b.start()
    await waitFor(acting)
    holder.start()
    // The holder's first scan has looked at the taken file (and left it): its settled() says so.
    await holder.settled()
    expect(existsSync(resultFile(dir, ID))).toBe(false)
    release.open()
    await waitFor(() => existsSync(resultFile(dir, ID)))
    await b.settled()
    expect(JSON.parse(readFileSync(resultFile(dir, ID), "utf8"))).toMatchObject({ ok: true, title: "Ralph · paused" })
  })
})
