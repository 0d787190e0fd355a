// The ralph_done and ralph_status tools in the real OpenCode: a call of ralph_done is a completion
// claim judged at once (the model reads the verdict in the same turn), and the turn's end decides
// as for the promise; outside a loop the tools say there is none.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { messageText, type MockRequest } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const MARKER_CHECK = {
  name: "marker",
  kind: "test",
  command: "test -f done.txt || (echo 'FAIL: done.txt is missing'; exit 1)",
}
const done = { name: "ralph_done", args: { summary: "Created done.txt.", evidence: ["ls done.txt: present"] } }

/** The text of the tool result the model is called back with (empty when the request is not one). */
const toolResult = (r: MockRequest): string => (r.lastRole === "tool" ? messageText(r.body.messages?.at(-1)) : "")
/** How many times the checks ran (each run toasts "Running N check(s): …"). */
const checkRuns = (project: Project) =>
  project.events.toasts().filter((t) => /^Running \d+ checks?:/.test(t.message)).length
/** Requests that start a turn (the plugin's prompts). */
const prompted = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user")

describe("ralph_done", () => {
  it("ends a loop whose checks pass; the model reads the acceptance in the same turn", async () => {
    const project = await harness().project("done-passes", {
      pluginOptions: { strategy: "continue", checks: [MARKER_CHECK] },
      script: {
        main: (r) => {
          const result = toolResult(r)
          if (result.includes("Accepted")) return { text: "The loop can end now." }
          if (r.lastRole === "tool") return { toolCalls: [done] }
          return { toolCalls: [{ name: "write", args: { filePath: "done.txt", content: "ok\n" } }] }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "create done.txt")
    const toast = await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(prompted(project)).toHaveLength(1)
    // The tool is offered with its two arguments, and the loop's prompt names it.
    const tools = JSON.stringify(prompted(project)[0]?.body.tools)
    expect(tools).toContain("ralph_done")
    expect(tools).toMatch(/"summary".*"evidence"/)
    expect(prompted(project)[0]?.lastUser).toContain("ralph_done tool")
    const answer = project
      .requests("main")
      .map(toolResult)
      .find((t) => t.includes("Accepted"))
    expect(answer).toContain("Accepted: the checks pass (marker)")
    expect(toast.properties.message).toContain("ralph_done was called and the checks pass")
    // The turn ended on the work tree the call's checks saw: they were not run a second time.
    expect(checkRuns(project)).toBe(1)
  })

  it("a file changed after an accepted call makes the turn's end run the checks again", async () => {
    const project: Project = await harness().project("done-then-edit", {
      pluginOptions: { strategy: "continue", checks: [MARKER_CHECK] },
      script: {
        main: (r) => {
          const result = toolResult(r)
          if (result.includes("Accepted"))
            return { toolCalls: [{ name: "write", args: { filePath: "notes.txt", content: "one more thing\n" } }] }
          if (r.lastRole === "tool" && project.requests("main").some((q) => toolResult(q).includes("Accepted")))
            return { text: "Done, with notes." }
          if (r.lastRole === "tool") return { toolCalls: [done] }
          return { toolCalls: [{ name: "write", args: { filePath: "done.txt", content: "ok\n" } }] }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "create done.txt")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(checkRuns(project)).toBe(2)
  })

  it("with a failing check, answers the failure in the same turn and the loop goes on; ralph_status reads the loop", async () => {
    const project = await harness().project("done-fails", {
      pluginOptions: { strategy: "continue", checks: [MARKER_CHECK] },
      script: {
        main: (r) => {
          const result = toolResult(r)
          if (result.includes("Accepted")) return { text: "Finished." }
          if (result.includes("Rejected")) return { text: "The check fails; I will fix it next." }
          if (result.includes("Iteration 1 of")) return { toolCalls: [done] }
          if (r.lastRole === "tool") return { toolCalls: [done] } // after the write
          if (r.lastUser.includes("done.txt is missing"))
            return { toolCalls: [{ name: "write", args: { filePath: "done.txt", content: "ok\n" } }] }
          return { toolCalls: [{ name: "ralph_status", args: {} }] }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "create done.txt")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    const results = project.requests("main").map(toolResult).filter(Boolean)
    // ralph_status, then the rejected claim with the check's output, then (iteration 2) the write and the accepted claim.
    expect(results[0]).toContain("Iteration 1 of")
    expect(results[0]).toContain("Task: create done.txt")
    expect(results[1]).toContain("Rejected: the claim does not hold yet")
    expect(results[1]).toContain("FAIL: done.txt is missing")
    expect(results.at(-1)).toContain("Accepted")
    // The model read the rejection in its first turn, before the loop's second prompt.
    const requests = project.requests("main")
    const [, second] = prompted(project)
    expect(prompted(project)).toHaveLength(2)
    expect(requests.findIndex((r) => toolResult(r).includes("Rejected"))).toBeLessThan(
      requests.indexOf(second as MockRequest),
    )
    expect(second?.lastUser).toContain("the completion claim was rejected")
    expect(second?.lastUser).toContain("FAIL: done.txt is missing")
  })

  it("in a plan loop, an accepted call marks the current story done and the loop moves on; the last one completes it", async () => {
    const storyCheck = (id: string) => ({
      name: `${id} file`,
      kind: "test",
      command: `test -f ${id}.txt || (echo 'FAIL: ${id}.txt is missing'; exit 1)`,
    })
    const project = await harness().project("done-plan", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) => {
          const story = /^## Current story: (\S+)/m.exec(r.lastUser)?.[1] ?? "none"
          const result = toolResult(r)
          if (result.includes("Accepted")) return { text: "Next." }
          if (r.lastRole === "tool")
            return {
              toolCalls: [
                { name: "ralph_done", args: { summary: `Did ${story}.`, evidence: [`${story}.txt written`] } },
              ],
            }
          return { toolCalls: [{ name: "write", args: { filePath: `${story}.txt`, content: "ok\n" } }] }
        },
      },
    })
    mkdirSync(join(project.dir, ".opencode"), { recursive: true })
    const stories = ["US-1", "US-2"].map((id) => ({
      id,
      title: id,
      acceptanceCriteria: [`${id}.txt exists`],
      passes: false,
      checks: [storyCheck(id)],
    }))
    writeFileSync(join(project.dir, ".opencode/prd.json"), JSON.stringify({ userStories: stories }, null, 2))
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    const answers = project
      .requests("main")
      .map(toolResult)
      .filter((t) => t.startsWith("Accepted"))
    expect(answers).toEqual([
      "Accepted: story US-1 is done — the checks pass (US-1 file). End your turn now; the next story comes in the next prompt.",
      "Accepted: the checks pass (US-2 file). End your turn now: the loop completes when it ends.",
    ])
    expect(
      JSON.parse(readFileSync(join(project.dir, ".opencode/prd.json"), "utf8")).userStories.map(
        (s: { passes: boolean }) => s.passes,
      ),
    ).toEqual([true, true])
    expect(prompted(project)).toHaveLength(2)
  })

  it("outside a loop, both tools answer that there is none", async () => {
    const project: Project = await harness().project("done-no-loop", {
      script: {
        main: (_r) => {
          const answered = project
            .requests("main")
            .filter((q) => toolResult(q).includes("There is no Ralph loop")).length
          if (answered === 0) return { toolCalls: [done] }
          return answered === 1 ? { toolCalls: [{ name: "ralph_status", args: {} }] } : { text: "noted" }
        },
      },
    })
    const session = await project.newSession()
    const { error } = await project.client.session.prompt({
      path: { id: session },
      body: { parts: [{ type: "text", text: "finish up" }] },
    })
    expect(error).toBeUndefined()
    await project.waitForIdle()
    const results = project.requests("main").map(toolResult).filter(Boolean)
    expect(results).toHaveLength(2)
    for (const result of results) expect(result).toContain("There is no Ralph loop in this session")
    expect(project.loops()).toHaveLength(0)
  })
})
