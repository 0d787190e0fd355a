// SDK failure injection in the real OpenCode: each call the ActionRunner makes fails once by an
// error answer, a timeout or a throw. The loop must end in a defined state (done, or paused with a
// toast naming the call), never create a duplicate session, never delete a session whose summary is
// not on disk, and send nothing after it paused.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { QUIET_MS, sharedHarness, sleep } from "./helpers.js"

const harness = sharedHarness({ env: { RALPH_LOOP_FAULT_INJECTION: "1" } })

type Outcome = "done" | "paused"
// What a failure of each call leads to: the loop either works around it or pauses and says why.
const CALLS: Record<string, Outcome> = {
  "session.messages": "paused",
  "session.summarize": "done",
  "session.create": "paused",
  "tui.session.select": "done",
  "session.promptAsync": "paused",
  "session.delete": "done",
  "tui.showToast": "done",
  "app.log": "done",
}
const cases = Object.entries(CALLS).flatMap(([call, outcome]) => (["error", "timeout", "throw"] as const).map((mode) => [call, mode, outcome] as const))

describe("SDK failure injection", () => {
  it.each(cases)("%s fails by %s → %s", async (call, mode, outcome) => {
    const name = `fault-${call.replace(/\W/g, "-")}-${mode}`
    const project = await harness().project(name, {
      configFileName: "ralph-loop-faults.json",
      configFile: JSON.stringify({ callTimeoutMs: 1_500, calls: { [call]: { mode, times: 1 } } }),
      pluginOptions: { maxRetries: 2 },
      script: { main: [{ text: "first half done" }, { text: "<promise>DONE</promise>" }], compaction: [{ text: "SUMMARY of the first half" }] },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "a task in two halves")
    const end = await project.events.waitFor(
      (e) => e.type === "tui.toast.show" && /^Ralph · (done|paused after an error)/.test(String(e.properties.title)),
      "the loop to end or pause",
      60_000,
    )
    const sentAtEnd = project.requests("main").length
    await sleep(QUIET_MS)

    expect(String(end.properties.title)).toMatch(outcome === "done" ? /done/ : /paused after an error/)
    if (outcome === "paused") {
      expect(String(end.properties.message)).toContain(call)
      expect(project.requests("main")).toHaveLength(sentAtEnd)
    }
    // No duplicate session: one restart at most, so at most one session the plugin created.
    const created = project.events.of("session.created").map((e) => String(e.properties.info?.id)).filter((id) => id !== first)
    expect(created.length).toBeLessThanOrEqual(1)
    // Nothing deleted without its summary and transcript on disk.
    for (const deleted of project.events.of("session.deleted").map((e) => String(e.properties.info?.id))) {
      expect(existsSync(join(project.dir, ".opencode/sessions", deleted, "ralph_summary.md"))).toBe(true)
      expect(existsSync(join(project.dir, ".opencode/sessions", deleted, "transcript.json"))).toBe(true)
    }
    if (call === "session.delete") expect(project.events.of("session.deleted")).toHaveLength(0)
    if (call === "session.summarize") expect(project.requests("main").at(-1)?.lastUser).toContain("no model summary was available")
  })
})
