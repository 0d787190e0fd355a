// `ralph-loop run` supervising its server, in the real OpenCode: whatever ends the runner — SIGHUP
// (a closed terminal), SIGKILL, Ctrl-C while OpenCode still boots — ends the server and its whole
// process group; a --resume of a loop OpenCode's start paused (resumeOnStart "ask") is taken back
// and completed; an --attach server that dies is noticed; a rollback beside the run is part of it.
import { execFile } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
import { packageDir } from "../harness/harness.js"
import { savedLoops } from "../harness/loop-files.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { startOpencodeServer } from "../harness/opencode-server.js"
import { waitUntil } from "../harness/wait.js"
import { ralphCli } from "./helpers.js"
import { groupAlive, holdingIterationTwo, processGroup, runSetup, serverPid, startRun } from "./run-helpers.js"

const setup = runSetup()

const execCli = promisify(execFile)

/** `ralph-loop --project DIR <args>`: its exit status and output. */
const cli = (project: string, ...args: string[]) => ralphCli(project, args, setup().env)

/** Waits until no process of the group is left (a killed process is reaped a moment later). */
const groupGone = (pgid: number, what: string) => waitUntil(() => !groupAlive(pgid), what, 15_000)

describe("ralph-loop run supervises its server", () => {
  it("SIGHUP (a closed terminal) is an interrupt: the loop pauses, the run exits 130, and no process of the server's group is left", async () => {
    const hold = gate()
    const project = setup().project("run-sighup", { script: { main: holdingIterationTwo(hold.opened) } })
    try {
      const run = startRun(setup(), project, ["build the widget"])
      await setup().mock.waitFor(
        () => setup().requests("run-sighup", "main").length >= 2,
        120_000,
        "the second iteration's request",
      )
      const server = serverPid(run.lines()) as number
      const pgid = processGroup(server)
      run.child.kill("SIGHUP")
      expect(await run.exit(), run.stderr()).toBe(EXIT.interrupted)
      expect(run.lines()).toContain("SIGHUP: pausing the loop, then stopping (again to stop at once)")
      expect(savedLoops(project)).toMatchObject([
        { phase: "paused", pauseCause: "interrupt", detail: "paused with ralph-loop run (SIGHUP)" },
      ])
      await groupGone(pgid, "the server's process group to be gone")
    } finally {
      hold.open()
    }
  })

  it("SIGKILL of the runner (no handler runs) ends the server and its group all the same: the pipe watchdog", async () => {
    const hold = gate()
    const project = setup().project("run-sigkill", { script: { main: holdingIterationTwo(hold.opened) } })
    try {
      const run = startRun(setup(), project, ["build the widget"])
      await setup().mock.waitFor(
        () => setup().requests("run-sigkill", "main").length >= 2,
        120_000,
        "the second iteration's request",
      )
      const pgid = processGroup(serverPid(run.lines()) as number)
      run.child.kill("SIGKILL")
      await run.exit()
      await groupGone(pgid, "the server's process group to be gone after the runner was killed")
    } finally {
      hold.open()
    }
  })

  it("Ctrl-C while OpenCode boots (a plugin of the project still loading) exits 130 within 2 s, and the booting server is gone", async () => {
    const name = "run-boot-interrupt"
    const dir = join(setup().root, "projects", name)
    const mark = join(dir, "booting.pid")
    const release = join(dir, "release")
    const holdPlugin = join(dir, "hold-boot.mjs")
    const project = setup().project(name, {
      opencodeConfig: { plugin: [packageDir(), holdPlugin] },
      script: { main: [{ text: "<promise>DONE</promise>" }] },
    })
    // A plugin whose loading holds OpenCode's boot of the project (GET /config answers after it) until released.
    writeFileSync(
      holdPlugin,
      `import { existsSync, writeFileSync } from "node:fs"
export default {
  id: "hold-boot",
  server: async () => {
    writeFileSync(${JSON.stringify(mark)}, String(process.pid))
    const until = Date.now() + 60000
    while (!existsSync(${JSON.stringify(release)}) && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    return {}
  },
}
`,
    )
    try {
      const run = startRun(setup(), project, ["build the widget"])
      // OpenCode is booting the project: the server process runs, the runner has not said it is up.
      const server = await waitUntil(
        () => existsSync(mark) && Number(readFileSync(mark, "utf8")),
        "OpenCode to be loading the project's plugins",
        120_000,
      )
      expect(run.lines()).toEqual([])
      const pgid = processGroup(server)
      const signalled = Date.now()
      run.child.kill("SIGINT")
      const code = await run.exit()
      const took = Date.now() - signalled
      expect(code, run.stderr()).toBe(EXIT.interrupted)
      expect(took).toBeLessThan(2_000)
      expect(run.lines().at(-1)).toMatch(/^ended: interrupted .*SIGINT while OpenCode booted.*\(exit 130\)$/)
      await groupGone(pgid, "the booting server's group to be gone")
      expect(setup().requests(name, "main")).toEqual([])
    } finally {
      writeFileSync(release, "")
    }
  })

  it('--resume with resumeOnStart "ask": the pause of OpenCode\'s start is lifted, the loop completes and its old session is retired', async () => {
    const hold = gate()
    const project = setup().project("run-resume-ask", {
      pluginOptions: { resumeOnStart: "ask" },
      script: { main: holdingIterationTwo(hold.opened) },
    })
    try {
      const first = startRun(setup(), project, ["build the widget"])
      await setup().mock.waitFor(
        () => setup().requests("run-resume-ask", "main").length >= 2,
        120_000,
        "the second iteration's request",
      )
      process.kill(-(serverPid(first.lines()) as number), "SIGKILL")
      expect(await first.exit(), first.stderr()).toBe(EXIT.runnerFailure)
      hold.open()

      const second = startRun(setup(), project, ["--resume"])
      expect(await second.exit(), second.stderr()).toBe(EXIT.completed)
      const lines = second.lines()
      expect(lines).toContain("paused: OpenCode restarted; /ralph-resume goes on")
      expect(lines.at(-1)).toMatch(/^ended: completed after [23] iterations .*\(exit 0\)$/)
      // The old session the kill kept from being retired went too, though the loop was taken back paused:
      // the run's end waited for it (up to 30 s) when it was left.
      expect(savedLoops(project)).toMatchObject([{ phase: "stopped", stopReason: "completed", retiring: [] }])
    } finally {
      hold.open()
    }
  })

  it("--attach to a server killed mid-loop: the run says so and exits 1 within 10 s", async () => {
    const hold = gate()
    const project = setup().project("run-attach-dies", { script: { main: holdingIterationTwo(hold.opened) } })
    const server = await startOpencodeServer({ cwd: project, env: setup().env, readyDirectory: project })
    try {
      const run = startRun(setup(), project, ["build the widget"], { attach: server.url })
      await setup().mock.waitFor(
        () => setup().requests("run-attach-dies", "main").length >= 2,
        120_000,
        "the second iteration's request",
      )
      // Still following: the server answered its health requests until now.
      expect(run.child.exitCode).toBeNull()
      const killed = Date.now()
      process.kill(server.pid, "SIGKILL")
      const code = await run.exit(30_000)
      const took = Date.now() - killed
      expect(code, run.stderr()).toBe(EXIT.runnerFailure)
      expect(took).toBeLessThan(10_000)
      expect(run.stderr()).toContain(`ralph-loop run: the OpenCode server at ${server.url} stopped answering (`)
      expect(run.stderr()).toMatch(/while the loop ran; `ralph-loop run --resume ses_\S+` takes the loop back/)
    } finally {
      hold.open()
      await server.stop("SIGKILL")
    }
  })

  it("a rollback beside the run is part of it: the run waits through it, and goes on to the end when the loop is resumed", async () => {
    const project = setup().project("run-rollback", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest): Reply => {
          if (r.index === 0)
            return {
              toolCalls: [{ name: "write", args: { filePath: "work.txt", content: "written by iteration 1\n" } }],
            }
          if (r.lastRole === "tool" && r.index === 1)
            return { error: { status: 400, message: "usage limit reached, resets in 2 hours" } }
          return { text: "<promise>DONE</promise>" }
        },
      },
    })
    writeFileSync(join(project, "work.txt"), "before the loop\n")
    const run = startRun(setup(), project, ["a task that hits the usage limit"])
    await run.waitForLine(/^waiting \(usage-limit\)/)
    const rolledBack = await cli(project, "rollback", "--to", "start")
    expect(rolledBack, rolledBack.stderr).toMatchObject({ code: 0 })
    await run.waitForLine(/^rollback: rolled back to checkpoint 0$/)
    expect(readFileSync(join(project, "work.txt"), "utf8")).toBe("before the loop\n")
    // Still running, its server too: the pause of a rollback is not the run's end.
    expect(run.child.exitCode).toBeNull()
    expect(groupAlive(serverPid(run.lines()) as number)).toBe(true)
    const resumed = await cli(project, "resume")
    expect(resumed, resumed.stderr).toMatchObject({ code: 0 })
    expect(await run.exit(), run.stderr()).toBe(EXIT.completed)
    expect(run.lines()).toContain("paused: rolling back to checkpoint 0")
    expect(run.lines().at(-1)).toMatch(/^ended: completed .*\(exit 0\)$/)
  })
})

describe("ralph-loop run's arguments and endings", () => {
  it("a task holding --verbose after -- reaches /ralph and the model whole", async () => {
    const project = setup().project("run-dashes-task", {
      script: { main: [{ text: "Done. <promise>DONE</promise>" }] },
    })
    const run = startRun(setup(), project, ["--", "fix the --verbose flag handling"])
    expect(await run.exit(), run.stderr()).toBe(EXIT.completed)
    const [first] = setup().requests("run-dashes-task", "main")
    expect(first?.lastUser).toContain("fix the --verbose flag handling")
    expect(run.lines().find((l) => l.startsWith("loop "))).toMatch(/: fix the --verbose flag handling — /)
  })

  it("a --story run whose branch could not be made exits 7 (not 0): the story is done, its work is not on ralph/story-<id>", async () => {
    const project = setup().project("run-story-no-branch", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest): Reply =>
          r.lastRole === "tool"
            ? { text: "Story s1 is done. <promise>DONE</promise>" }
            : { toolCalls: [{ name: "bash", args: { command: "printf 's1\\n' > s1.txt", description: "Story s1" } }] },
      },
    })
    const plan = {
      userStories: [{ id: "s1", title: "one", acceptanceCriteria: ["s1.txt exists"], priority: 1, passes: false }],
    }
    writeFileSync(join(project, "plan.json"), `${JSON.stringify(plan, null, 2)}\n`)
    const git = (...args: string[]) => execCli("git", args, { cwd: project, env: setup().env })
    await git("add", "plan.json")
    await git("-c", "user.name=The User", "-c", "user.email=user@example.invalid", "commit", "-q", "-m", "the plan")
    // A branch named `ralph` leaves no room for refs/heads/ralph/story-s1 (git keeps refs as paths).
    await git("branch", "ralph")
    const run = startRun(setup(), project, ["--prd", "plan.json", "--story", "s1"])
    expect(await run.exit(), run.stderr()).toBe(EXIT.storyNotCommitted)
    expect(run.stderr()).toContain("ralph-loop run: story s1 is done, but its branch ralph/story-s1 was not made")
    expect(run.lines().at(-1)).toMatch(/^ended: story-not-committed .*\(exit 7\)$/)
    expect(savedLoops(project)).toMatchObject([{ phase: "stopped", stopReason: "completed" }])
  })
})
