// What a user sees of a loop's outcome: the files it changed on a work tree they were already
// changing, the session title when it stops, /ralph-status after it ended.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, onTestFinished } from "vitest"
import type { Project } from "../harness/harness.js"
import { gate, type MockRequest } from "../harness/mock-model.js"
import {
  readIfExists,
  selectedSessions,
  sharedHarness,
  summaryFile,
  waitForFile,
  waitForLoopEnd,
  waitForStreamedText,
  waitForToast,
} from "./helpers.js"

const harness = sharedHarness()

/** The "- " items listed under a heading of a handoff or report (blank lines before them skipped). */
function listedFiles(text: string, heading: RegExp): string[] {
  const lines = text.split("\n")
  const start = lines.findIndex((line) => heading.test(line))
  if (start < 0) return []
  let i = start + 1
  while (lines[i]?.trim() === "") i += 1
  const items: string[] = []
  for (; /^\s*- /.test(lines[i] ?? ""); i += 1) items.push((lines[i] as string).trim())
  return items
}

describe("a loop started on a dirty work tree", () => {
  it("the handoff and the report list only what the loop changed: its new file and the pre-existing file it edited", async () => {
    const project = await harness().project("dirty-tree", {
      script: {
        main: (r: MockRequest) => {
          if (r.lastUser.includes("fresh session")) return { text: "All done. <promise>DONE</promise>" }
          if (r.lastRole === "tool") return { text: "wrote new.txt and added to draft.txt; more to do" }
          return {
            toolCalls: [
              {
                name: "bash",
                args: {
                  command: "printf 'new\\n' > new.txt && printf 'more\\n' >> draft.txt",
                  description: "Write files",
                },
              },
            ],
          }
        },
      },
    })
    // Not started again by the restart of a later test of this file (each start boots its instance).
    onTestFinished(() => project.close())
    // The user's own work in progress before /ralph: a modified tracked file, two untracked ones.
    writeFileSync(join(project.dir, "README.md"), "# dirty-tree\n\nThe user's unsaved edit.\n")
    writeFileSync(join(project.dir, "notes.txt"), "the user's untracked notes\n")
    writeFileSync(join(project.dir, "draft.txt"), "the user's untracked draft\n")
    const first = await project.newSession()
    await project.command(first, "ralph", "write new.txt and extend the draft")
    await waitForToast(project, /^Ralph · done/)

    const handoff = readIfExists(summaryFile(project, first)) ?? ""
    expect(listedFiles(handoff, /^- Files changed since the loop began:/)).toEqual(["- draft.txt", "- new.txt"])
    expect(selectedSessions(project)).toHaveLength(1)
    // The second iteration's prompt carries the same facts.
    expect(project.requests("main").find((r) => r.lastUser.includes("fresh session"))?.lastUser).toContain(
      "  - new.txt",
    )

    const report = await waitForFile(join(project.dir, ".opencode/sessions", first, "ralph_report.md"))
    expect(listedFiles(report, /^## Files changed since the loop began/)).toEqual([
      "- `??` draft.txt",
      "- `??` new.txt",
    ])
  })
})

describe("the title of a stopped loop's last session", () => {
  /** Resolves with the session's title once OpenCode announced it (session.updated), read back from the server. */
  async function titleBecomes(project: Project, sessionID: string, title: RegExp): Promise<string> {
    await project.events.waitFor(
      (e) =>
        e.type === "session.updated" &&
        e.properties.info?.id === sessionID &&
        title.test(String(e.properties.info?.title)),
      `the title of ${sessionID} to match ${title}`,
    )
    const { data } = await project.client.session.get({ path: { id: sessionID } })
    return data?.title ?? ""
  }

  it("after completion: Ralph ✓ · <task> · 2 iterations", async () => {
    const project = await harness().project("title-done", {
      script: { main: [{ text: "working on it" }, { text: "Done. <promise>DONE</promise>" }] },
    })
    // Not started again by the restart of a later test of this file (each start boots its instance).
    onTestFinished(() => project.close())
    const first = await project.newSession()
    await project.command(first, "ralph", "polish the widget")
    await waitForToast(project, /^Ralph · done/)
    const last = selectedSessions(project).at(-1) ?? ""
    expect(await titleBecomes(project, last, /^Ralph ✓/)).toBe("Ralph ✓ · polish the widget · 2 iterations")
  })

  it("after /cancel-ralph: Ralph ■ cancelled · <task> · 1 iteration", async () => {
    const turnOne = gate()
    const project = await harness().project("title-cancel", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest) =>
          r.lastUser.startsWith("[ralph-loop control]")
            ? { text: "OK" }
            : { text: "a slow reply that takes a while", holdAfterFirstChunk: turnOne.opened },
      },
    })
    // Not started again by the restart of a later test of this file (each start boots its instance).
    onTestFinished(() => project.close())
    const session = await project.newSession()
    void project.command(session, "ralph", "a task to cancel").catch(() => undefined)
    await waitForStreamedText(project, /^a slow/)
    void project.command(session, "cancel-ralph", "").catch(() => undefined)
    await waitForToast(project, /cancelled/)
    turnOne.open()
    expect(await titleBecomes(project, session, /^Ralph ■/)).toBe("Ralph ■ cancelled · a task to cancel · 1 iteration")
  })

  it("after the iteration limit: Ralph ⚠ limit · <task> · 2 iterations", async () => {
    const project = await harness().project("title-limit", {
      pluginOptions: { strategy: "continue", maxRetries: 1 },
      script: { main: (r: MockRequest) => ({ text: `still going ${"z".repeat(r.index + 1)}` }) },
    })
    // Not started again by the restart of a later test of this file (each start boots its instance).
    onTestFinished(() => project.close())
    const session = await project.newSession()
    await project.command(session, "ralph", "an endless task")
    await waitForToast(project, /retry limit/)
    expect(await titleBecomes(project, session, /^Ralph ⚠/)).toBe("Ralph ⚠ limit · an endless task · 2 iterations")
  })
})

describe("/ralph-status after the loop ended", () => {
  const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
  /** What the plugin answered to /ralph-status in `sessionID`: the text of its control message. */
  async function status(project: Project, sessionID: string): Promise<string> {
    const before = project.requests("main").length
    await project.command(sessionID, "ralph-status", "")
    const request = project.requests("main").slice(before).find(isControl)
    if (!request) throw new Error("/ralph-status sent no control turn")
    return request.lastUser
  }

  it("shows how it ended in its last and earlier sessions, lists the project's loops elsewhere, and still does after OpenCode restarted", async () => {
    const project = await harness().project("status-ended", {
      // fresh: the loop's first session stays (recreate would delete it).
      pluginOptions: { strategy: "fresh" },
      script: {
        main: (r: MockRequest) =>
          isControl(r)
            ? { text: "OK" }
            : r.lastUser.includes("fresh session")
              ? { text: "Done. <promise>DONE</promise>" }
              : { text: "working on it" },
      },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "polish the widget")
    await waitForToast(project, /^Ralph · done/)
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const last = loop?.sessionID ?? ""
    expect(last).not.toBe(first)
    await waitForFile(join(project.dir, ".opencode/sessions", first, "ralph_report.md"))

    const expectOutcome = (text: string) => {
      expect(text).toMatch(/^Ralph loop — ended ✓ completed: /m)
      expect(text).toContain("Task: polish the widget")
      expect(text).toMatch(/^2 iterations of at most 6 · restarts 1 · strategy fresh$/m)
      expect(text).toMatch(/^Time: \d+\.\d min, .* · tokens [\d,]+ · cost 0\.00$/m)
      expect(text).toContain(`Report: .opencode/sessions/${first}/ralph_report.md`)
      expect(text).toMatch(/^- ✓ completed · 2 iterations · ended .* · polish the widget$/m)
    }
    expectOutcome(await status(project, last))
    expectOutcome(await status(project, first))
    const elsewhere = await status(project, await project.newSession())
    expect(elsewhere).toMatch(/^No Ralph loop in this session\.$/m)
    expect(elsewhere).toMatch(/^- ✓ completed · 2 iterations · ended .* · polish the widget$/m)

    await harness().restartServer("SIGTERM")
    expectOutcome(await status(project, last))
  })

  it("says there is no loop in a project that never had one", async () => {
    const project = await harness().project("status-none", { script: { main: [{ text: "OK" }] } })
    expect(await status(project, await project.newSession())).toContain(
      "There is no Ralph loop in this session. Start one with /ralph <task>.",
    )
  })
})
