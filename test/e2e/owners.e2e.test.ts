// Two OpenCode processes on one project, in the real OpenCode: a TUI open (test/harness/tui.ts)
// and `ralph-loop run` beside it. Each has the plugin, each watches the project's control folder;
// the loop the run started is the run's server's own, so every control request to it must reach
// that process — never be taken (and refused) by the TUI's. And `ralph-loop clean` is the project's
// lease holder's: done by the live OpenCode that holds it, by clean itself once that process has died.
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { sendControl } from "../../src/control/client.js"
import { STATE_DIR } from "../../src/project/own-files.js"
import { STALE_MS } from "../../src/owner/heartbeat.js"
import { LEASE_DIR, readLease } from "../../src/owner/project-lease.js"
import { gate } from "../harness/mock-model.js"
import { opencodeBinary } from "../harness/opencode-server.js"
import { startTui, type Tui } from "../harness/tui.js"
import { waitUntil } from "../harness/wait.js"
import { alive, CLI, serverPid } from "./run-helpers.js"
import { runCli } from "../cli-runner.js"
import { DAY_MS } from "../../src/clean/clean-loops.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { loop as fixtureLoop } from "../unit/fixtures.js"

/** `ralph-loop ARGS --project DIR` with the TUI's isolated environment: its exit status and output. */
function cli(tui: Tui, ...args: string[]): { status: number | null; out: string } {
  const run = runCli([...args, "--project", tui.dir], { env: tui.env, timeout: 60_000 })
  return { status: run.status, out: `${run.stdout}${run.stderr}` }
}

/** Ends what a test started: the run (by PID) and the server it started (its process group). */
function stopRun(child: ChildProcess | undefined, lines: string[]): void {
  if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(child.pid, "SIGKILL")
  const server = serverPid(lines)
  if (server)
    try {
      process.kill(-server, "SIGKILL")
    } catch {
      // gone, as it should be
    }
}

describe("one owner per loop across OpenCode processes", () => {
  it("a TUI and `ralph-loop run` on one project: ten control requests to the run's loop all reach the run's OpenCode, ten out of ten", {
    timeout: 300_000,
  }, async () => {
    const hold = gate()
    const tui = await startTui("owner-tui-run", {
      // The run's loop: its first reply is held mid-stream while the requests come, then it completes.
      script: {
        main: (r) =>
          r.index === 0
            ? { text: "working on the widget", holdAfterFirstChunk: hold.opened }
            : { text: "All finished. <promise>DONE</promise>" },
      },
    })
    let run: ChildProcess | undefined
    let out = ""
    try {
      // The TUI's plugin answers on the project's control folder: the only process there yet.
      mkdirSync(join(tui.dir, STATE_DIR), { recursive: true })
      expect(await sendControl(tui.dir, { verb: "status", from: "the test" }, { timeoutMs: 60_000 })).toMatchObject({
        status: "done",
      })

      run = spawn(
        process.execPath,
        [CLI, "run", "--project", tui.dir, "--opencode", opencodeBinary(), "build the widget"],
        { cwd: tui.dir, env: tui.env, stdio: ["ignore", "pipe", "pipe"] },
      )
      run.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
      run.stderr?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
      const exited = new Promise<number | null>((resolve) => run?.once("exit", (code) => resolve(code)))
      await tui.mock.waitFor(() => tui.requests("main").length >= 1, 120_000, "the run's first prompt")
      const [loop] = tui.loops()
      expect(loop?.phase).toBe("running")

      const answers = []
      for (let i = 1; i <= 10; i += 1) answers.push(cli(tui, "hint", loop?.id as string, `hint number ${i}`))
      expect(
        answers.map((a) => a.status),
        answers.map((a) => a.out).join("\n"),
      ).toEqual(Array(10).fill(0))
      expect(answers.every((a) => a.out.includes("Ralph · hint queued"))).toBe(true)

      hold.open()
      expect(await exited, out).toBe(0)
      // The run's loop had them all: its next prompt carries the ten hints.
      const next = tui.requests("main").find((r) => r.index >= 1 && r.lastUser.includes("## Hint from the user"))
      for (let i = 1; i <= 10; i += 1) expect(next?.lastUser).toContain(`- hint number ${i}\n`.trimEnd())
    } finally {
      hold.open()
      stopRun(run, out.split("\n"))
      await tui.stop()
    }
  })

  it("`ralph-loop clean` beside a live OpenCode is done by that OpenCode (the lease holder): an old loop's files go, today's stay; done by clean itself once that OpenCode has died", {
    timeout: 180_000,
  }, async () => {
    const tui = await startTui("owner-clean")
    try {
      mkdirSync(join(tui.dir, STATE_DIR), { recursive: true })
      const leaseFolder = join(tui.dir, LEASE_DIR)
      await waitUntil(
        () => existsSync(leaseFolder) && readdirSync(leaseFolder).some((n) => n.endsWith(".json")),
        "the TUI's OpenCode to take the project's lease",
        60_000,
      )
      // Two ended loops: one 40 days ago, one a minute ago (its end files long written), each with its session folder.
      const store = new LoopStore(tui.dir)
      const ended = (id: string) => fixtureLoop({ id, sessionID: id, lineage: [id], phase: "stopped" })
      await store.save(ended("ses_old"), "stopped", Date.now() - 40 * DAY_MS)
      await store.save(ended("ses_today"), "stopped", Date.now() - 60_000)
      await store.flush()
      for (const id of ["ses_old", "ses_today"]) {
        mkdirSync(join(tui.dir, ".opencode/sessions", id), { recursive: true })
        writeFileSync(join(tui.dir, ".opencode/sessions", id, "ralph_summary.md"), `summary of ${id}`)
      }
      const beside = cli(tui, "clean")
      expect(beside.status, beside.out).toBe(0)
      expect(beside.out).toMatch(
        /^ralph-loop clean: the project's lease is held by OpenCode \(pid \d+ on \S+, running; last heartbeat \d+ s ago\); it does the clean$/m,
      )
      expect(beside.out).toMatch(/^ralph-loop clean: removed the files of 1 loop that ended more than 30 days ago/m)
      expect(readdirSync(join(tui.dir, STATE_DIR, "loops")).sort()).toEqual(["ses_today.json"])
      expect(readdirSync(join(tui.dir, ".opencode/sessions")).filter((n) => n.startsWith("ses_"))).toEqual([
        "ses_today",
      ])
      // The TUI's OpenCode did it, and holds the lease still: clean never took it.
      const holder = (await readLease(tui.dir)).reduce((a, b) => (b.seq > a.seq ? b : a))
      expect(holder.record).toMatchObject({ pid: tui.pid, what: "OpenCode" })
      expect(holder.record?.released).toBeUndefined()

      process.kill(tui.pid, "SIGKILL")
      // What the lease rule reads as a holder that stopped: its pid gone, or — a killed process still
      // listed a while on a loaded machine (a CI run waited 30 s for its pid to go) — no heartbeat
      // for STALE_MS.
      const stopped = async () =>
        !alive(tui.pid) ||
        (await readLease(tui.dir)).every((e) => e.record?.pid !== tui.pid || Date.now() - e.record.heartbeat > STALE_MS)
      await waitUntil(stopped, "the TUI's OpenCode to die (its pid gone, or its heartbeat stale)", 60_000)
      const done = cli(tui, "clean", "--days", "0")
      expect(done.status, done.out).toBe(0)
      expect(done.out).not.toContain("it does the clean")
      expect(done.out).toContain("ralph-loop clean: removed the files of 1 loop")
    } finally {
      await tui.stop()
    }
  })
})
