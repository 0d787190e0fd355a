// The loop store asks the one liveness rule (src/owner/liveness.ts) about a saved loop's owner: at
// a start (load) and at a heartbeat (orphans). The two defects of issue 47 it fixes: an owner whose
// pid now belongs to another process (no heartbeat for an hour) was left the loop; an owner on
// another host that beats was taken over at once.
import { mkdirSync, writeFileSync } from "node:fs"
import { spawn, spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { waitUntil } from "../harness/wait.js"
import { dirname } from "node:path"
import { describe, expect, it } from "vitest"
import { HOST, usHere } from "../../src/owner/heartbeat-files.js"
import { writePresence } from "../../src/owner/presence-files.js"
import { LoopStore, stateText } from "../../src/store/loop-store.js"
import type { LoopOwner } from "../../src/store/loop-owner.js"
import { loop } from "./fixtures.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const now = Date.now()

/** A project whose one live loop is owned by `owner`, whose heartbeat (if `beatAge`) is that old. */
async function projectOwnedBy(owner: LoopOwner, beatAge?: number): Promise<{ dir: string; store: LoopStore }> {
  const dir = tempDir("ralph-owner-")
  const store = new LoopStore(dir, undefined, undefined, "our-boot")
  const l = loop({ phase: "running" })
  mkdirSync(dirname(store.fileOf(l.id)), { recursive: true })
  writeFileSync(store.fileOf(l.id), stateText(l, now, owner))
  if (beatAge !== undefined && owner.boot !== undefined)
    await writePresence(dir, { ...owner, boot: owner.boot, heartbeat: now - beatAge, what: "OpenCode" })
  return { dir, store }
}

/** A pid that runs, and is not this process: the test's parent. */
const livePid = process.ppid
/** A pid that ran and is gone. */
const deadPid = spawnSync(process.execPath, ["-e", ""]).pid as number

describe("the loop store judges a saved loop's owner by the one liveness rule", () => {
  it("a loop whose owner's pid runs again, but whose heartbeat is an hour old, is taken back (defect 2)", async () => {
    const { store } = await projectOwnedBy({ pid: livePid, host: HOST, boot: "old-boot" }, 3_600_000)
    const found = await store.load(now)
    expect(found.owned).toEqual([])
    expect(found.loops).toHaveLength(1)
  })

  it("a loop owned by a live OpenCode on another host (its heartbeat fresh) is left to it (defect 3)", async () => {
    const { store } = await projectOwnedBy({ pid: deadPid, host: `${HOST}-other`, boot: "their-boot" }, 1_000)
    const found = await store.load(now)
    expect(found.loops).toEqual([])
    expect(found.owned).toHaveLength(1)
    expect(await store.orphans(now, () => false)).toEqual([])
  })

  it("a live local owner keeps its loop; once its pid is gone, a heartbeat's look finds the loop to take back", async () => {
    const live = await projectOwnedBy({ pid: livePid, host: HOST, boot: "their-boot" }, 1_000)
    expect((await live.store.load(now)).owned).toHaveLength(1)
    expect(await live.store.orphans(now, () => false)).toEqual([])
    const dead = await projectOwnedBy({ pid: deadPid, host: HOST, boot: "their-boot" }, 1_000)
    const [orphan] = await dead.store.orphans(now, () => false)
    expect(orphan?.phase).toBe("running")
    // One this instance runs already is not found again.
    expect(await dead.store.orphans(now, (id) => id === orphan?.id)).toEqual([])
  })

  it("with another live lease holder, a start leaves the loops whose owner is gone to it", async () => {
    const { store } = await projectOwnedBy({ pid: deadPid, host: HOST, boot: "their-boot" }, 1_000)
    const found = await store.load(now, true)
    expect(found.loops).toEqual([])
    expect(found.leftToHolder).toHaveLength(1)
  })
})

describe.runIf(process.platform === "linux")("the probe of a local pid", () => {
  it("a zombie (exited, not reaped by its parent: signal 0 still reaches it) does not run", async () => {
    // The child exits at once; its parent never waits for it (a shell might reap it before an exec: a race).
    const never =
      "import os, sys, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(5)\n"
    const parent = spawn("python3", ["-c", never], { stdio: ["ignore", "pipe", "ignore"] })
    try {
      let out = ""
      parent.stdout.on("data", (d: Buffer) => (out += d.toString()))
      const pid = await waitUntil(() => Number(out.trim()) || undefined, "the child's pid")
      const state = () => readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0]
      await waitUntil(() => state() === "Z", "the child to be a zombie")
      expect(() => process.kill(pid, 0)).not.toThrow()
      expect(usHere(Date.now()).pidAlive(pid)).toBe(false)
      expect(usHere(Date.now()).pidAlive(parent.pid as number)).toBe(true)
    } finally {
      parent.kill("SIGKILL")
    }
  })
})
