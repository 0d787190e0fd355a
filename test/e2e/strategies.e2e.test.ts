// The seed-000 loop in the real OpenCode, for each restart strategy.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  readIfExists,
  selectedSessions,
  sessionIDs,
  sharedHarness,
  summaryFile,
  toastTitles,
  waitForLoopEnd,
  waitForToast,
} from "./helpers.js"

const harness = sharedHarness()

const WORKING_TWICE_THEN_DONE = [
  { text: "working on it" },
  { text: "still working" },
  { text: "All finished. <promise>DONE</promise>" },
]
const numberedSummaries = {
  compaction: (r: { index: number }) => ({ text: `SUMMARY-${r.index + 1}: files a.txt and b.txt written` }),
}

describe("recreate (the default)", () => {
  it("restarts twice in fresh sessions, hands over the summary, archives and deletes the old ones, then stops on the promise", async () => {
    const project = await harness().project("recreate", {
      script: { main: WORKING_TWICE_THEN_DONE, ...numberedSummaries },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "build the widget")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    const main = project.requests("main")
    expect(main).toHaveLength(3)
    expect(project.requests("compaction")).toHaveLength(2)
    expect(toastTitles(project).filter((t) => t.startsWith("Ralph · done"))).toHaveLength(1)
    expect(project.events.toasts().find((t) => t.title?.startsWith("Ralph · done"))?.variant).toBe("success")

    // The first prompt is the task plus the promise instruction; the loop note is in the system prompt.
    expect(main[0]?.lastUser).toContain("build the widget")
    expect(main[0]?.lastUser).toContain("<promise>DONE</promise>")
    for (const request of main) expect(request.system).toContain("Ralph loop mode")

    // Each restart prompt carries the task and the summary the model wrote.
    expect(main[1]?.lastUser).toContain("build the widget")
    expect(main[1]?.lastUser).toContain("SUMMARY-1")
    expect(main[2]?.lastUser).toContain("SUMMARY-2")
    expect(main[2]?.lastUser).toMatch(/iteration 3 of 6/)

    // Lineage: first → second → third; the TUI was pointed at each new session.
    const selected = selectedSessions(project)
    expect(selected).toHaveLength(2)
    const [second, third] = selected as [string, string]
    expect(new Set([first, second, third]).size).toBe(3)

    // Summaries at the contract path, with the model's summary text.
    expect(readIfExists(summaryFile(project, first))).toContain("SUMMARY-1")
    expect(readIfExists(summaryFile(project, first))).toContain("build the widget")
    expect(readIfExists(summaryFile(project, second))).toContain("SUMMARY-2")

    // Old sessions deleted, only after their transcript was archived and the new session was prompted.
    expect(await sessionIDs(project)).toEqual([third])
    for (const [old, next] of [
      [first, second],
      [second, third],
    ] as const) {
      const transcript = JSON.parse(
        readFileSync(join(project.dir, ".opencode/sessions", old, "transcript.json"), "utf8"),
      )
      expect(transcript.sessionID).toBe(old)
      expect(JSON.stringify(transcript.messages)).toContain("SUMMARY")
      const events = project.events.events
      const deletedAt = events.findIndex((e) => e.type === "session.deleted" && e.properties.info?.id === old)
      const promptedAt = events.findIndex(
        (e) =>
          e.type === "message.updated" && e.properties.info?.sessionID === next && e.properties.info?.role === "user",
      )
      expect(promptedAt).toBeGreaterThan(-1)
      expect(deletedAt).toBeGreaterThan(promptedAt)
      expect(Date.parse(transcript.archivedAt)).toBeLessThanOrEqual(events[deletedAt]!.at)
    }
  })
})

describe("fresh", () => {
  it("keeps the old sessions and writes a summary for each restart", async () => {
    const project = await harness().project("fresh", {
      pluginOptions: { strategy: "fresh" },
      script: { main: WORKING_TWICE_THEN_DONE, ...numberedSummaries },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "build the gadget")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(project.requests("main")).toHaveLength(3)
    const [second, third] = selectedSessions(project) as [string, string]
    expect(await sessionIDs(project)).toEqual([first, second, third].sort())
    expect(project.events.of("session.deleted")).toHaveLength(0)
    expect(readIfExists(summaryFile(project, first))).toContain("SUMMARY-1")
    expect(readIfExists(summaryFile(project, second))).toContain("SUMMARY-2")
    expect(existsSync(join(project.dir, ".opencode/sessions", first, "transcript.json"))).toBe(false)
  })
})

describe("continue", () => {
  it("re-prompts the same session and never creates another", async () => {
    const project = await harness().project("continue", {
      pluginOptions: { strategy: "continue" },
      script: { main: WORKING_TWICE_THEN_DONE },
    })
    const only = await project.newSession()
    await project.command(only, "ralph", "build the gizmo")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(project.requests("main")).toHaveLength(3)
    expect(project.requests("compaction")).toHaveLength(0)
    expect(await sessionIDs(project)).toEqual([only])
    expect(selectedSessions(project)).toHaveLength(0)
    const { data: messages } = await project.client.session.messages({ path: { id: only } })
    const users = (messages ?? []).filter((m) => m.info.role === "user")
    expect(users).toHaveLength(3)
    expect(project.requests("main")[2]?.lastUser).toContain("build the gizmo")
  })
})

describe("a model that never promises", () => {
  it("gets exactly maxRetries restarts, then the warning toast, then silence", async () => {
    const project = await harness().project("never", {
      pluginOptions: { maxRetries: 2 },
      script: { main: [{ text: "still going" }] },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "an endless task")
    const warning = await waitForToast(project, /retry limit/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "retries-exhausted" })

    expect(project.requests("main")).toHaveLength(3)
    expect(warning.properties.variant).toBe("warning")
    expect(warning.properties.message).toMatch(/maxRetries 2/)
    expect(selectedSessions(project)).toHaveLength(2)
  })
})
