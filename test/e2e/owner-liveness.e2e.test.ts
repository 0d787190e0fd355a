// Two real OpenCode servers on one project, and the one liveness rule (src/owner/liveness.ts) between
// them. A loop whose OpenCode was killed is taken back by the other, already running one at its next
// heartbeat, with no restart, and goes on. A loop owned by an OpenCode on another host (here: another
// RALPH_LOOP_HOST_ID, the name a process goes by in owner records) is left to it while it beats: one
// engine, one prompt per turn.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { HEARTBEAT_MS, type Heartbeat } from "../../src/owner/heartbeat.js"
import { STATE_DIR } from "../../src/project/own-files.js"
import { startHarness, type Harness, type Project } from "../harness/harness.js"
import { LOOPS_DIR } from "../harness/loop-files.js"
import { gate, type Gate, type MockRequest } from "../harness/mock-model.js"
import { isolatedEnv, startOpencodeServer, type OpencodeServer } from "../harness/opencode-server.js"
import { waitUntil } from "../harness/wait.js"
import { waitForLoopEnd, waitForStreamedText } from "./helpers.js"

const started: Array<{ harness: Harness; second?: OpencodeServer; hold: Gate }> = []
afterEach(async () => {
  for (const { harness, second, hold } of started.splice(0)) {
    hold.open()
    await second?.stop("SIGKILL")
    await harness.stop()
  }
})

/** The first prompt's reply streams until `hold` opens; every later one ends the loop. */
const holdThenDone = (hold: Gate) => ({
  main: (r: MockRequest) =>
    r.index === 0
      ? { text: "working on the widget", holdAfterFirstChunk: hold.opened }
      : { text: "<promise>DONE</promise>" },
})

/** The heartbeats in the project's processes/ folder, by boot id. */
function presence(dir: string): Map<string, Heartbeat> {
  const folder = join(dir, STATE_DIR, "processes")
  if (!existsSync(folder)) return new Map()
  const beats = readdirSync(folder)
    .filter((n) => n.endsWith(".json"))
    .map((n) => JSON.parse(readFileSync(join(folder, n), "utf8")) as Heartbeat)
  return new Map(beats.map((b) => [b.boot, b]))
}

/** The owner and save time of the project's one state file. */
function stateOwner(dir: string): { boot?: string; savedAt: number } | undefined {
  const folder = join(dir, LOOPS_DIR)
  const [name] = existsSync(folder) ? readdirSync(folder).filter((n) => n.endsWith(".json")) : []
  if (!name) return undefined
  const data = JSON.parse(readFileSync(join(folder, name), "utf8")) as { owner?: { boot?: string }; savedAt: string }
  return { ...(data.owner?.boot ? { boot: data.owner.boot } : {}), savedAt: Date.parse(data.savedAt) }
}

/**
 * A project with a loop under way in the harness's server (its first reply held mid-stream), and a
 * second `opencode serve` on the same HOME and project (env `secondEnv` more) once its plugin beats there.
 */
async function loopBesideSecondServer(
  name: string,
  hold: Gate,
  env: { first?: Record<string, string>; second?: Record<string, string> } = {},
) {
  const harness = await startHarness(env.first ? { env: env.first } : {})
  const entry: (typeof started)[number] = { harness, hold }
  started.push(entry)
  const project: Project = await harness.project(name, { script: holdThenDone(hold) })
  const session = await project.newSession()
  void project.command(session, "ralph", "build the widget").catch(() => undefined)
  await waitForStreamedText(project, /^working/)
  const first = await waitUntil(() => stateOwner(project.dir)?.boot, "the loop's state file naming its owner")
  const second = await startOpencodeServer({
    cwd: project.dir,
    env: isolatedEnv(harness.root, env.second),
    readyDirectory: project.dir,
  })
  entry.second = second
  const secondBoot = await waitUntil(
    () => [...presence(project.dir).values()].find((b) => b.pid === second.pid)?.boot,
    "the second OpenCode's heartbeat in the project",
    60_000,
  )
  return { harness, project, second, first, secondBoot }
}

describe("two OpenCode servers on one project: one engine per loop", () => {
  it("a loop whose OpenCode was killed is taken back by the other running OpenCode within a heartbeat, and goes on", {
    timeout: 180_000,
  }, async () => {
    const hold = gate()
    const { harness, project, second, first, secondBoot } = await loopBesideSecondServer("liveness-died", hold)
    // The second one left the loop to its live owner: only the first prompt so far.
    expect(project.requests("main")).toHaveLength(1)
    expect(stateOwner(project.dir)?.boot).toBe(first)

    await harness.server.stop("SIGKILL")
    const diedAt = Date.now()
    const taken = await waitUntil(
      () => {
        const owner = stateOwner(project.dir)
        return owner?.boot === secondBoot && owner
      },
      "the second OpenCode to take the loop back",
      30_000,
    )
    // The second server is the one that was running all along: no restart.
    expect(presence(project.dir).get(secondBoot)?.pid).toBe(second.pid)
    // One interval until its next beat, and that beat's own work (the lease, the state files, the save).
    const tookMs = taken.savedAt - diedAt
    console.info(`taken back ${tookMs} ms after the owner died (heartbeat every ${HEARTBEAT_MS} ms)`)
    expect(tookMs).toBeLessThanOrEqual(2 * HEARTBEAT_MS)

    // And it goes on: the next prompt comes from the second server, and the loop completes there.
    await project.waitForRequests(2, "main", 60_000)
    await waitUntil(
      () => project.loops()[0]?.phase === "stopped" && project.loops()[0]?.stopReason === "completed",
      "the loop to complete in the second OpenCode",
      60_000,
    )
    expect(project.requests("main")).toHaveLength(2)
  })

  it("a loop owned by an OpenCode of another host name is run by that one only, while it beats", {
    timeout: 180_000,
  }, async () => {
    const hold = gate()
    const { project, secondBoot } = await loopBesideSecondServer("liveness-host", hold, {
      first: { RALPH_LOOP_HOST_ID: "host-a" },
      second: { RALPH_LOOP_HOST_ID: "host-b" },
    })
    const hosts = [...presence(project.dir).values()].map((b) => b.host).sort()
    expect(hosts).toEqual(["host-a", "host-b"])
    // Two beats of the second one after its start (its recovery would have prompted within a second of it).
    const since = presence(project.dir).get(secondBoot)?.heartbeat ?? 0
    await waitUntil(
      () => (presence(project.dir).get(secondBoot)?.heartbeat ?? 0) >= since + 2 * HEARTBEAT_MS,
      "two more heartbeats of the second OpenCode",
      30_000,
    )
    expect(project.requests("main").map((r) => r.lastUser)).toHaveLength(1)

    hold.open()
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    // One engine: the first prompt and the one after its reply; no prompt of a second engine's recovery.
    const prompts = project.requests("main").filter((r) => r.lastRole === "user")
    expect(prompts).toHaveLength(2)
    expect(prompts.some((r) => /restarted while you were working/.test(r.lastUser))).toBe(false)
  })
})
