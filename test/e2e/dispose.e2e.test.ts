// A check runs in a process group of its own, so it would outlive OpenCode: when OpenCode disposes
// the plugin's instance, or OpenCode's process ends (a SIGTERM runs no dispose), the check's whole
// group goes too. The check here is a `sleep 600` whose PID it writes first.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { startHarness, type Harness, type Project } from "../harness/harness.js"
import { waitUntil } from "../harness/wait.js"

const harnesses: Harness[] = []
// A sleep a failing test leaves behind is ended by PID.
const sleeps: number[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.stop()))
  for (const pid of sleeps.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL")
})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A loop whose completion claim runs a check that sleeps for ten minutes: resolves with the sleep's PID. */
async function loopInItsCheck(name: string): Promise<{ harness: Harness; project: Project; pid: number }> {
  const harness = await startHarness()
  harnesses.push(harness)
  const project = await harness.project(name, {
    pluginOptions: {
      strategy: "continue",
      checks: [{ name: "long", kind: "test", command: "sleep 600 & echo $! > sleep.pid; wait" }],
    },
    script: { main: [{ text: "Done. <promise>DONE</promise>" }] },
  })
  const session = await project.newSession()
  await project.command(session, "ralph", "finish the work")
  const file = join(project.dir, "sleep.pid")
  const pid = await waitUntil(
    () => existsSync(file) && Number(readFileSync(file, "utf8").trim()),
    "the check's sleep to start",
  )
  sleeps.push(pid)
  return { harness, project, pid }
}

describe("a running check ends with OpenCode", () => {
  it("OpenCode disposes the instance: the check's process group is killed", async () => {
    const { project, pid } = await loopInItsCheck("disposed")
    expect(alive(pid)).toBe(true)
    const { error } = await project.client.instance.dispose()
    expect(error).toBeUndefined()
    await waitUntil(() => !alive(pid), `the check's sleep (pid ${pid}) to be gone`, 10_000)
  })

  it("OpenCode is stopped with SIGTERM: the check's process group goes with it", async () => {
    const { harness, pid } = await loopInItsCheck("sigterm")
    expect(alive(pid)).toBe(true)
    await harness.server.stop("SIGTERM")
    await waitUntil(() => !alive(pid), `the check's sleep (pid ${pid}) to be gone`, 10_000)
  })
})
