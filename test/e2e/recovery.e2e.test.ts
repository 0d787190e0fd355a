// Kill OpenCode mid-loop and start it again on the same data: the loop goes on from the same
// iteration with the same counts. A damaged state file is moved aside and rebuilt from the journal.
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startHarness, type Harness, type Project } from "../harness/harness.js"
import { gate, type Gate, type MockRequest } from "../harness/mock-model.js"
import { waitForLoopEnd, waitForStreamedText } from "./helpers.js"

const harnesses: Harness[] = []
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.stop()))
})

const prompted = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user")

/** Turn 1 quick, turn 2 streams until `cutOff` opens (the kill lands in it); after the restart: the promise. */
function killableScript(project: () => Project, cutOff: Gate) {
  return {
    main: (r: MockRequest) => {
      if (/restarted while you were working/.test(r.lastUser)) return { text: "<promise>DONE</promise>" }
      return prompted(project()).length <= 1
        ? { text: "first part written" }
        : { text: "working on the second part", holdAfterFirstChunk: cutOff.opened }
    },
  }
}

/** Waits for a toast in the events of the server running now. */
function toastNow(project: Project, title: RegExp, timeoutMs = 60_000) {
  return project.events.waitFor(
    (e) => e.type === "tui.toast.show" && title.test(String(e.properties.title)),
    `a toast titled ${title}`,
    timeoutMs,
  )
}

describe.each(["SIGKILL", "SIGTERM"] as const)("OpenCode killed with %s mid-loop", (signal) => {
  it("the loop goes on after the restart from the same iteration, with the same counts", async () => {
    const harness = await startHarness()
    harnesses.push(harness)
    const strategy = signal === "SIGKILL" ? "continue" : "recreate"
    let project!: Project
    const cutOff = gate()
    project = await harness.project(`kill-${signal}`, {
      pluginOptions: { strategy },
      script: killableScript(() => project, cutOff),
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "a task in two parts").catch(() => undefined)
    // Iteration 2 is streaming when the server dies.
    await waitForStreamedText(project, /^working/)
    const killed = harness.server
    await harness.restartServer(signal)
    cutOff.open()
    // Ended by that signal, not by the SIGKILL that follows a SIGTERM left unanswered.
    expect(await killed.exited(0)).toBe(signal)

    const recovered = await toastNow(project, /^Ralph 2\/6/)
    expect(recovered.properties.message).toContain("recovered after OpenCode restarted: iteration 2, 1 restart so far")
    const done = await toastNow(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(done.properties.message).toContain("finished in 2 iterations")
    const resume = prompted(project).at(-1)!
    expect(resume.lastUser).toMatch(/iteration 2 of 6 · resuming/)
    expect(prompted(project)).toHaveLength(3)
    // Exactly one loop: one done toast, nothing sent after it.
    expect(project.events.toasts().filter((t) => t.title === "Ralph · done")).toHaveLength(1)
  })
})

describe("a corrupted state file", () => {
  it("is moved aside, the loop is rebuilt from the journal with a clear toast, no crash, no double loop", async () => {
    const harness = await startHarness()
    harnesses.push(harness)
    let project!: Project
    const cutOff = gate()
    project = await harness.project("corrupt", {
      pluginOptions: { strategy: "continue" },
      script: killableScript(() => project, cutOff),
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "a task in two parts").catch(() => undefined)
    await waitForStreamedText(project, /^working/)
    await harness.server.stop("SIGTERM")
    cutOff.open()
    const loops = join(project.dir, ".opencode/ralph-loop/loops")
    const [file] = readdirSync(loops).filter((n) => n.endsWith(".json"))
    writeFileSync(join(loops, file!), '{ "schemaVersion": 1, "loop": { "iteration": "lots" ')
    await harness.restartServer("SIGTERM")

    const problem = await toastNow(project, /state file problem/)
    expect(problem.properties.message).toMatch(
      /is damaged .* moved aside to .*\.corrupt-.* rebuilt from the journal at iteration 2/,
    )
    await toastNow(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(readdirSync(loops).some((n) => n.includes(".corrupt-"))).toBe(true)
    expect(prompted(project)).toHaveLength(3)
    expect(prompted(project).at(-1)?.lastUser).toMatch(/iteration 2 of 6 · resuming/)
    const { data, error } = await project.client.config.get()
    expect(error).toBeUndefined()
    expect(data).toBeTruthy()
    expect(existsSync(join(loops, file!))).toBe(true)
  })
})
