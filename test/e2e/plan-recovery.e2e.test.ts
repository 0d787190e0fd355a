// A plan loop survives OpenCode being killed mid-plan: after the restart it resumes at the story it
// was on, with the same iteration and counts, and finishes the plan.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startHarness, type Harness, type Project } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { waitForLoopEnd, waitForStreamedText } from "./helpers.js"

const harnesses: Harness[] = []
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.stop()))
})

const prompted = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user")
const storyOf = (r: MockRequest) => /^## Current story: (\S+)/m.exec(r.lastUser)?.[1]

function toastNow(project: Project, title: RegExp, timeoutMs = 60_000) {
  return project.events.waitFor(
    (e) => e.type === "tui.toast.show" && title.test(String(e.properties.title)),
    `a toast titled ${title}`,
    timeoutMs,
  )
}

describe("a plan loop killed with SIGKILL mid-plan", () => {
  it("resumes at the right story after the restart, with its counts, and finishes the plan", async () => {
    const harness = await startHarness()
    harnesses.push(harness)
    const cutOff = gate()
    const project = await harness.project("plan-kill", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest): Reply => {
          const id = storyOf(r)
          if (!id) return { text: "nothing to do" }
          if (r.lastRole === "tool") return { text: `Story ${id} done. <promise>DONE</promise>` }
          // US-2's first turn streams until the kill: the kill lands in it.
          if (id === "US-2" && !/restarted while you were working/.test(r.lastUser))
            return { text: "working on US-2 slowly", holdAfterFirstChunk: cutOff.opened }
          return { toolCalls: [{ name: "write", args: { filePath: `${id}.txt`, content: "done\n" } }] }
        },
      },
    })
    mkdirSync(join(project.dir, ".opencode"), { recursive: true })
    const check = (id: string) => [{ name: `${id} file`, command: `test -f ${id}.txt`, kind: "test" }]
    writeFileSync(
      join(project.dir, ".opencode/prd.json"),
      JSON.stringify(
        {
          userStories: ["US-1", "US-2", "US-3"].map((id, i) => ({
            id,
            title: `story ${i + 1}`,
            acceptanceCriteria: [],
            priority: i + 1,
            passes: false,
            checks: check(id),
          })),
        },
        null,
        2,
      ),
    )
    const session = await project.newSession()
    void project.command(session, "ralph", "--prd").catch(() => undefined)
    await waitForStreamedText(project, /^working/, 60_000)
    await harness.restartServer("SIGKILL")
    cutOff.open()

    const recovered = await toastNow(project, /^Ralph 2\/50 · story US-2 \(2 of 3\)/)
    expect(recovered.properties.message).toContain("recovered after OpenCode restarted: iteration 2, 1 restart so far")
    const done = await toastNow(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(done.properties.message).toContain("finished in 3 iterations")
    expect(prompted(project).map(storyOf)).toEqual(["US-1", "US-2", "US-2", "US-3"])
    expect(prompted(project)[2]!.lastUser).toMatch(/iteration 2 of 50 · resuming/)
    expect(prompted(project)[2]!.lastUser).toContain("- [x] US-1 story 1 (done in iteration 1)")
    const plan = JSON.parse(readFileSync(join(project.dir, ".opencode/prd.json"), "utf8"))
    expect(plan.userStories.map((s: { passes: boolean; notes: string }) => [s.passes, s.notes])).toEqual(
      [1, 2, 3].map((n) => [true, `Verified by ralph-loop in iteration ${n}: US-${n} file passed`]),
    )
    expect(project.events.toasts().filter((t) => t.title === "Ralph · done")).toHaveLength(1)
  })
})
