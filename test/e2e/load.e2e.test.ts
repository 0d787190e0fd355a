// Twenty loops at once in one OpenCode server: each gets exactly its own continuations.
import { describe, expect, it } from "vitest"
import type { MockRequest } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForToasts } from "./helpers.js"

const harness = sharedHarness()

const LOOPS = 20

describe("load", () => {
  it(`${LOOPS} concurrent recreate loops each get only their own continuations`, async () => {
    const turns = new Map<string, number>()
    const project = await harness().project("twenty", {
      script: {
        main: (r: MockRequest) => {
          const task = /task-(\d\d)/.exec(r.lastUser)?.[1] ?? "none"
          const n = (turns.get(task) ?? 0) + 1
          turns.set(task, n)
          return n < 2
            ? { text: `task-${task} first half done`, delayMs: 100 }
            : { text: `task-${task} <promise>DONE</promise>` }
        },
        compaction: (r: MockRequest) => ({ text: `SUMMARY for ${/task-\d\d/.exec(r.lastUser)?.[0] ?? "?"}` }),
      },
    })
    const sessions = await Promise.all(Array.from({ length: LOOPS }, (_, i) => project.newSession(`loop ${i}`)))
    await Promise.all(
      sessions.map((id, i) => project.command(id, "ralph", `work on task-${String(i).padStart(2, "0")}`)),
    )
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, LOOPS, 120_000)
    await waitForToasts(project, /^Ralph · done/, LOOPS)

    expect(project.events.toasts().filter((t) => t.title === "Ralph · done")).toHaveLength(LOOPS)
    const prompted = project.requests("main").filter((r) => r.lastRole === "user")
    expect(prompted).toHaveLength(2 * LOOPS)
    // Every task got exactly two turns, and every restart prompt carried its own task and summary only.
    expect([...turns.values()]).toEqual(Array(LOOPS).fill(2))
    for (const request of prompted.filter((r) => r.lastUser.includes("fresh session"))) {
      const task = /task-(\d\d)/.exec(request.lastUser)?.[0]
      expect(request.lastUser).toContain(`SUMMARY for ${task}`)
      expect(request.lastUser.match(/task-\d\d/g)?.every((t) => t === task)).toBe(true)
    }
    // recreate: the 20 first sessions were deleted, the 20 second ones remain.
    const { data: left } = await project.client.session.list()
    expect(left).toHaveLength(LOOPS)
    expect(left?.some((s) => sessions.includes(s.id))).toBe(false)
  })
})
