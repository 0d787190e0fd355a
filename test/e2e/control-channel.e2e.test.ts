// The control channel in the real OpenCode: `ralph-loop pause | resume | cancel | rollback`, run as
// processes of their own beside it, act on a loop through the plugin's control folder — no chat
// message, so the model is sent nothing for them. A request written while OpenCode is down is acted
// on once it starts again; one it had taken when it stopped is not acted on again.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, onTestFinished } from "vitest"
import { RESUMED } from "../../src/engine/jobs/go-on.js"
import { CONTROL_DIR } from "../../src/control/request.js"
import { TURN_UNDER_WAY } from "../../src/checkpoints/rollback-rule.js"
import { gate, type MockRequest } from "../harness/mock-model.js"
import { ralphCli, sharedHarness, waitForLoopEnd, waitForStreamedText } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")

/** `ralph-loop --project DIR <args>`: its exit status and output. */
const cli = (project: string, ...args: string[]) => ralphCli(project, args)

describe("ralph-loop pause, resume, cancel and rollback through the control channel", () => {
  it("pause stops a loop mid-turn and costs the model nothing; resume makes it go on and complete", async () => {
    const turnOne = gate()
    const project = await harness().project("channel-pause", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : r.index === 0
              ? { text: "working on part one", holdAfterFirstChunk: turnOne.opened }
              : { text: "all done <promise>DONE</promise>" },
      },
    })
    // Not started again by the restart of a later test of this file (each start boots its instance).
    onTestFinished(() => project.close())
    const session = await project.newSession()
    void project.command(session, "ralph", "build the parser").catch(() => undefined)
    await waitForStreamedText(project, /^working/)

    const paused = await cli(project.dir, "pause")
    expect(paused).toMatchObject({ code: 0, stderr: "" })
    expect(paused.stdout).toContain(`Ralph · paused — ${session}`)
    turnOne.open()
    const [loop] = await waitForLoopEnd(project, { phase: "paused" })
    expect(loop?.detail).toBe("paused with ralph-loop pause")
    // The model was sent turn 1 and nothing else: no control turn, and turn 1's end sent nothing.
    expect(project.requests("main")).toHaveLength(1)

    const resumed = await cli(project.dir, "resume", session.slice(0, 12))
    expect(resumed).toMatchObject({ code: 0, stderr: "" })
    expect(resumed.stdout).toContain("Ralph · resumed")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const main = project.requests("main")
    expect(main).toHaveLength(2)
    expect(main.filter(isControl)).toEqual([])
    // From outside the chat no turn of the loop's session ends to decide turn 1: the loop resumes it now.
    expect(main[1]?.lastUser).toMatch(/iteration 1 of 6 · resuming/)
    expect(main[1]?.lastUser).toContain(RESUMED)
    // Every request was answered and taken: nothing is left in the control folder.
    expect(readdirSync(join(project.dir, CONTROL_DIR)).filter((name) => name !== ".tmp")).toEqual([])
  })

  it("rollback under a turn is refused with the reason; cancel ends the loop", async () => {
    const turnOne = gate()
    const project = await harness().project("channel-cancel", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) =>
          isControl(r) ? { text: "OK" } : { text: "working on part one", holdAfterFirstChunk: turnOne.opened },
      },
    })
    // Not started again by the restart of a later test of this file (each start boots its instance).
    onTestFinished(() => project.close())
    const session = await project.newSession()
    void project.command(session, "ralph", "build the parser").catch(() => undefined)
    await waitForStreamedText(project, /^working/)

    const rollback = await cli(project.dir, "rollback", "--to", "start")
    expect(rollback.code).toBe(1)
    expect(rollback.stderr).toContain("Ralph · no rollback")
    expect(rollback.stderr).toContain(TURN_UNDER_WAY)
    expect(project.loops()[0]?.phase).toBe("running")

    const cancelled = await cli(project.dir, "cancel")
    expect(cancelled).toMatchObject({ code: 0, stderr: "" })
    turnOne.open()
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "cancelled" })
    expect(loop?.detail).toBe("cancelled with ralph-loop cancel")
    expect(project.requests("main")).toHaveLength(1)
    // Nothing is live any more: the next request is refused by the command itself.
    expect(await cli(project.dir, "pause")).toMatchObject({
      code: 1,
      stderr: "ralph-loop pause: There is no live Ralph loop in this project.\n",
    })
  })

  it("a request written while OpenCode is down is acted on once it starts; one it had taken when it stopped is not acted on again", async () => {
    const turnOne = gate()
    const project = await harness().project("channel-restart", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : r.index === 0
              ? { text: "working on part one", holdAfterFirstChunk: turnOne.opened }
              : { text: "all done <promise>DONE</promise>" },
      },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "build the parser").catch(() => undefined)
    await waitForStreamedText(project, /^working/)
    expect((await cli(project.dir, "pause")).code).toBe(0)
    turnOne.open()
    await waitForLoopEnd(project, { phase: "paused" })

    const folder = join(project.dir, CONTROL_DIR)
    const taken = "1700000000001-00000000"
    const waiting = "1700000000002-00000000"
    await harness().restartServer("SIGTERM", () => {
      mkdirSync(folder, { recursive: true })
      // Taken by the run that stopped, never answered: a cancel that must not happen now.
      writeFileSync(join(folder, `${taken}.taken.json`), JSON.stringify({ id: taken, verb: "cancel", loop: session }))
      writeFileSync(
        join(folder, `${waiting}.request.json`),
        JSON.stringify({ id: waiting, verb: "resume", loop: session, from: "a test" }),
      )
    })

    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(project.requests("main").filter((r) => !isControl(r))).toHaveLength(2)
    expect(project.requests("main").filter(isControl)).toEqual([])
    const answer = (id: string) => JSON.parse(readFileSync(join(folder, `${id}.result.json`), "utf8"))
    expect(answer(waiting)).toMatchObject({ id: waiting, ok: true, title: "Ralph · resumed", loop: session })
    expect(answer(taken)).toMatchObject({ id: taken, ok: false, title: "Ralph · request interrupted" })
    expect(
      readdirSync(folder)
        .filter((name) => name !== ".tmp")
        .sort(),
    ).toEqual([`${taken}.result.json`, `${waiting}.result.json`])
  })
})
