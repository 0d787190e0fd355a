// The control channel, client and server side, on real files: each request is acted on once, in
// order, also when it was written before the plugin started; a request the plugin had taken when
// OpenCode stopped is not acted on again; what is not a request is refused or left alone, and a
// client whose plugin does not answer withdraws its request.
import { execFileSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  watch,
  writeFileSync,
  type FSWatcher,
} from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { ControlChannel, type ControlAct, type WatchFolder } from "../../src/control/channel.js"
import { controlFolder, sendControl } from "../../src/control/client.js"
import { CONTROL_DIR, type ControlRequest } from "../../src/control/request.js"
import { STATE_DIR } from "../../src/project/own-files.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const channels: ControlChannel[] = []
afterEach(() => {
  for (const c of channels.splice(0)) c.dispose()
})

/** A channel whose acts are recorded; `answer` says what each returns. */
function channel(
  dir: string,
  answer: (r: ControlRequest) => { ok: boolean; title: string; message: string } = (r) => ({
    ok: true,
    title: `did ${r.verb}`,
    message: r.text ?? "",
  }),
) {
  const acted: ControlRequest[] = []
  const logged: string[] = []
  const act: ControlAct = async (r) => {
    acted.push(r)
    return answer(r)
  }
  const c = new ControlChannel(dir, act, (_level, message) => logged.push(message))
  channels.push(c)
  return { c, acted, logged }
}

function writeRequest(dir: string, id: string, body: Record<string, unknown>, suffix = "request"): void {
  mkdirSync(controlFolder(dir), { recursive: true })
  writeFileSync(join(controlFolder(dir), `${id}.${suffix}.json`), JSON.stringify({ id, ...body }))
}

const result = (dir: string, id: string) =>
  JSON.parse(readFileSync(join(controlFolder(dir), `${id}.result.json`), "utf8"))

/** Resolves once `n` results are in the folder, and the channel has finished what it saw. */
async function results(dir: string, c: ControlChannel, n: number): Promise<string[]> {
  const found = () => readdirSync(controlFolder(dir)).filter((name) => name.endsWith(".result.json"))
  // Watched before the first look, so no result is missed between the two.
  await new Promise<void>((resolve) => {
    const w = watch(controlFolder(dir), () => {
      if (found().length < n) return
      w.close()
      resolve()
    })
    if (found().length >= n) {
      w.close()
      resolve()
    }
  })
  await c.settled()
  return found().sort()
}

/** Resolves once `condition` holds (checked on each turn of the event loop). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve))
}

/** A watchFolder that records each folder watched and its listener; `real`: it also watches them for real. */
function recordingWatch(real: boolean): { watchFolder: WatchFolder; watched: string[]; listeners: (() => void)[] } {
  const watched: string[] = []
  const listeners: (() => void)[] = []
  const watchFolder: WatchFolder = (folder, listener) => {
    watched.push(folder)
    listeners.push(listener)
    return real
      ? watch(folder, listener)
      : ({
          close() {},
          on() {
            return this
          },
        } as unknown as FSWatcher)
  }
  return { watchFolder, watched, listeners }
}

describe("the control channel", () => {
  it("a client's request is acted on once and answered; nothing is left in the folder", async () => {
    const dir = tempDir("ralph-control-")
    const { c, acted } = channel(dir)
    c.start()
    const outcome = await sendControl(dir, { verb: "hint", loop: "ses_1", text: "look at the parser", from: "test" })
    expect(outcome).toEqual({ id: outcome.id, status: "done", title: "did hint", message: "look at the parser" })
    expect(acted).toEqual([{ id: outcome.id, verb: "hint", loop: "ses_1", text: "look at the parser", from: "test" }])
    await c.settled()
    expect(readdirSync(controlFolder(dir)).filter((name) => name !== ".tmp")).toEqual([])
  })

  it("a refusal comes back as refused, with its reason", async () => {
    const dir = tempDir("ralph-control-")
    const { c } = channel(dir, () => ({
      ok: false,
      title: "Ralph · no rollback",
      message: "A turn of the loop is under way.",
    }))
    c.start()
    expect(await sendControl(dir, { verb: "rollback", checkpoint: 1 })).toMatchObject({
      status: "refused",
      title: "Ralph · no rollback",
      message: "A turn of the loop is under way.",
    })
  })

  it("requests written before the plugin started are acted on at its start, in their order, each once — also after another restart", async () => {
    const dir = tempDir("ralph-control-")
    const ids = ["1700000000003-00000000", "1700000000001-ffffffff", "1700000000002-11111111"]
    for (const [i, id] of ids.entries()) writeRequest(dir, id, { verb: "remember", text: `note ${i}` })
    const first = channel(dir)
    first.c.start()
    await results(dir, first.c, 3)
    expect(first.acted.map((r) => r.text)).toEqual(["note 1", "note 2", "note 0"])
    expect(result(dir, ids[1]!)).toEqual({ id: ids[1], ok: true, title: "did remember", message: "note 1" })
    first.c.dispose()
    // OpenCode starts again: the answered requests are not acted on again.
    const second = channel(dir)
    second.c.start()
    writeRequest(dir, "1700000000009-00000000", { verb: "pause" })
    await results(dir, second.c, 4)
    expect(second.acted.map((r) => r.verb)).toEqual(["pause"])
  })

  it("a request taken when OpenCode stopped is answered as interrupted, never acted on again", async () => {
    const dir = tempDir("ralph-control-")
    const id = "1700000000001-00000000"
    writeRequest(dir, id, { verb: "rollback" }, "taken")
    const { c, acted } = channel(dir)
    c.start()
    await results(dir, c, 1)
    expect(acted).toEqual([])
    expect(result(dir, id)).toMatchObject({ id, ok: false, title: "Ralph · request interrupted" })
    expect(existsSync(join(controlFolder(dir), `${id}.taken.json`))).toBe(false)
  })

  it("what is not a request is refused unacted; a FIFO is left alone and does not hold up the next request", async () => {
    const dir = tempDir("ralph-control-")
    const folder = join(dir, CONTROL_DIR)
    mkdirSync(folder, { recursive: true })
    execFileSync("mkfifo", [join(folder, "1700000000001-00000000.request.json")])
    writeFileSync(join(folder, "1700000000002-00000000.request.json"), "x".repeat(20_000))
    writeFileSync(
      join(folder, "1700000000003-00000000.request.json"),
      JSON.stringify({ id: "1700000000003-00000000", verb: "explode" }),
    )
    writeRequest(dir, "1700000000004-00000000", { verb: "pause" })
    const { c, acted, logged } = channel(dir)
    c.start()
    await results(dir, c, 3)
    expect(acted.map((r) => r.id)).toEqual(["1700000000004-00000000"])
    expect(result(dir, "1700000000002-00000000")).toMatchObject({
      ok: false,
      message: "the request is larger than 16384 bytes",
    })
    expect(result(dir, "1700000000003-00000000")).toMatchObject({ ok: false, message: expect.stringContaining("verb") })
    expect(logged).toContain("control request 1700000000001-00000000.request.json is not a regular file: left alone")
    expect(existsSync(join(folder, "1700000000001-00000000.request.json"))).toBe(true)
  })

  it("a control folder made after the plugin started is watched from then on", async () => {
    const dir = tempDir("ralph-control-")
    const { c } = channel(dir)
    c.start()
    await c.settled()
    expect(existsSync(controlFolder(dir))).toBe(false)
    expect(await sendControl(dir, { verb: "cancel" })).toMatchObject({ status: "done", title: "did cancel" })
  })

  it("once the plugin's folder is there, the control folder is made and watched: the plugin's state writes beside it start no new watch", async () => {
    const dir = tempDir("ralph-control-")
    mkdirSync(join(dir, STATE_DIR), { recursive: true })
    const { watchFolder, watched, listeners } = recordingWatch(false)
    const c = new ControlChannel(
      dir,
      async () => ({ ok: true, title: "did it", message: "" }),
      () => {},
      Date.now,
      watchFolder,
    )
    channels.push(c)
    c.start()
    await waitFor(() => watched.length > 0)
    await c.settled()
    expect(watched).toEqual([controlFolder(dir)])
    // What a state write beside it would report, were the plugin's folder the one watched.
    for (let i = 0; i < 20; i += 1) {
      writeFileSync(join(dir, STATE_DIR, `state-${i}.json`), "{}")
      for (const listener of listeners) listener()
    }
    await c.settled()
    expect(watched).toEqual([controlFolder(dir)])
  })

  it("a control folder removed with its tree (a worktree's removal while its instance runs) is not made again; a client's next request is still acted on", async () => {
    const dir = tempDir("ralph-control-")
    mkdirSync(join(dir, STATE_DIR), { recursive: true })
    const { watchFolder, watched, listeners } = recordingWatch(true)
    const acted: ControlRequest[] = []
    const c = new ControlChannel(
      dir,
      async (r) => {
        acted.push(r)
        return { ok: true, title: `did ${r.verb}`, message: "" }
      },
      () => {},
      Date.now,
      watchFolder,
    )
    channels.push(c)
    c.start()
    await waitFor(() => watched.includes(controlFolder(dir)))
    await c.settled()
    // What git's recursive removal does first: the control folder goes, its parent is next.
    const before = watched.length
    rmSync(controlFolder(dir), { recursive: true })
    for (const listener of [...listeners]) listener()
    // The channel looks again, and watches the nearest folder left.
    await waitFor(() => watched.length > before)
    await c.settled()
    expect(watched.at(-1)).toBe(join(dir, STATE_DIR))
    expect(existsSync(controlFolder(dir))).toBe(false)
    expect(await sendControl(dir, { verb: "pause" })).toMatchObject({ status: "done", title: "did pause" })
    expect(acted.map((r) => r.verb)).toEqual(["pause"])
  })

  it("with no plugin to answer, the client withdraws its request and says so", async () => {
    const dir = tempDir("ralph-control-")
    const outcome = await sendControl(dir, { verb: "pause" }, { timeoutMs: 300 })
    expect(outcome).toMatchObject({
      status: "no-answer",
      message: `No answer: is OpenCode running with the ralph-loop plugin in ${dir}? No running OpenCode holds the project's lease. The request was withdrawn; nothing was done.`,
    })
    expect(readdirSync(controlFolder(dir)).filter((name) => name !== ".tmp")).toEqual([])
    // A plugin that starts later finds nothing to do.
    const { c, acted } = channel(dir)
    c.start()
    await c.settled()
    expect(acted).toEqual([])
  })

  it("a request whose rename into place brings no watch event (Bun reports a burst of changes once) is still acted on", async () => {
    const dir = tempDir("ralph-control-")
    mkdirSync(controlFolder(dir), { recursive: true })
    // A watcher that reports only when the test says: here, once, for the temp file's creation.
    let fire: (() => void) | undefined
    const watchFolder: WatchFolder = (_folder, listener) => {
      fire = listener
      return {
        close() {},
        on() {
          return this
        },
      } as unknown as FSWatcher
    }
    const acted: ControlRequest[] = []
    const c = new ControlChannel(
      dir,
      async (r) => {
        acted.push(r)
        return { ok: true, title: "did it", message: "" }
      },
      () => {},
      Date.now,
      watchFolder,
    )
    channels.push(c)
    c.start()
    await waitFor(() => fire !== undefined)
    await c.settled()
    const id = "1700000000000-0000000a"
    const temp = join(controlFolder(dir), `.${id}.request.json.${process.pid}.0000000a.tmp`)
    writeFileSync(temp, JSON.stringify({ id, verb: "pause" }))
    fire?.()
    await c.settled()
    expect(acted).toEqual([])
    renameSync(temp, join(controlFolder(dir), `${id}.request.json`))
    expect(await results(dir, c, 1)).toEqual([`${id}.result.json`])
    expect(acted.map((r) => r.verb)).toEqual(["pause"])
  })

  it("a request that is not one is refused by the client before anything is written", async () => {
    const dir = tempDir("ralph-control-")
    await expect(sendControl(dir, { verb: "explode" as "pause" })).rejects.toThrow()
    expect(existsSync(controlFolder(dir))).toBe(false)
  })
})
