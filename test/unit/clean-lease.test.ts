// Who does `ralph-loop clean`: this process when nobody live holds the project's lease; the OpenCode
// that holds it, asked through the control channel (its answer printed, its status the exit status);
// nobody while another `ralph-loop clean` holds it.
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { withCleanLease } from "../../src/cli/clean-lease.js"
import type { ControlOutcome } from "../../src/control/client.js"
import { HOST } from "../../src/owner/heartbeat-files.js"
import { ProjectLease } from "../../src/owner/project-lease.js"
import { STATE_DIR } from "../../src/project/own-files.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()

function project(): string {
  const dir = tmp("clean-lease-")
  mkdirSync(join(dir, STATE_DIR), { recursive: true })
  return dir
}

/** The lease taken by a live process of this machine (the test worker's parent: another pid than clean's) named `what`. */
async function held(dir: string, what: string): Promise<void> {
  const view = await new ProjectLease(dir, { pid: process.ppid, host: HOST, boot: "the-holder", what }).tick()
  expect(view).toEqual({ kind: "mine" })
}

async function clean(dir: string, answer: Omit<ControlOutcome, "id">) {
  const lines: string[] = []
  const calls = { work: 0, ask: 0 }
  const code = await withCleanLease(
    dir,
    (line) => lines.push(line),
    async () => {
      calls.work += 1
      return 0
    },
    async () => {
      calls.ask += 1
      return { id: "1", ...answer }
    },
  )
  return { code, lines, calls }
}

const removed = "ralph-loop clean: removed the files of 1 loop that ended more than 30 days ago (1 KB)"

describe("ralph-loop clean and the project's lease", () => {
  it("nobody holds it: clean does the work itself", async () => {
    const run = await clean(project(), { status: "done", title: "", message: "" })
    expect(run).toMatchObject({ code: 0, calls: { work: 1, ask: 0 } })
  })

  it("a live OpenCode holds it: that OpenCode is asked, its lines printed, its answer the exit status", async () => {
    const dir = project()
    await held(dir, "OpenCode")
    const done = await clean(dir, { status: "done", title: "Ralph · clean", message: removed })
    expect(done).toMatchObject({ code: 0, calls: { work: 0, ask: 1 } })
    expect(done.lines[0]).toMatch(/^ralph-loop clean: the project's lease is held by OpenCode \(pid \d+ .*\); it does/)
    expect(done.lines.slice(1)).toEqual([removed])

    const failedLine = "ralph-loop clean: could not remove the state file x: EACCES"
    const failed = await clean(dir, { status: "refused", title: "Ralph · clean", message: `${removed}\n${failedLine}` })
    expect(failed).toMatchObject({ code: 1, lines: [failed.lines[0], removed, failedLine] })

    const silent = await clean(dir, { status: "no-answer", title: "Ralph · no answer", message: "No answer." })
    expect(silent.code).toBe(1)
    expect(silent.lines[1]).toMatch(/^ralph-loop clean: nothing removed by OpenCode \(pid \d+.*\): No answer\.$/)
  })

  it("another ralph-loop clean holds it: nothing is removed, nobody is asked", async () => {
    const dir = project()
    await held(dir, "ralph-loop clean")
    const run = await clean(dir, { status: "done", title: "", message: "" })
    expect(run).toMatchObject({ code: 1, calls: { work: 0, ask: 0 } })
    expect(run.lines).toEqual([
      expect.stringMatching(
        /^ralph-loop clean: nothing removed: the project's lease is held by ralph-loop clean \(pid \d+ .*\)\. Wait for it to end and run clean again\.$/,
      ),
    ])
  })
})
