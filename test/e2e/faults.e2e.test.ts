// SDK failure injection in the real OpenCode: each call the ActionRunner makes fails once by an
// error answer, a timeout or a throw. The loop must end in a defined state (done, or paused with a
// toast naming the call), never create a duplicate session, never delete a session whose summary is
// not on disk, and send nothing after it paused.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { sharedHarness, waitForLoopEnd } from "./helpers.js"

const harness = sharedHarness({ env: { RALPH_LOOP_FAULT_INJECTION: "1" } })

type Outcome = "done" | "paused"
interface Expected {
  outcome: Outcome
  /** Sessions the plugin created (one restart at most: never a duplicate) and deleted. */
  created: 0 | 1
  deleted: 0 | 1
}
// What a failure of each call leads to: the loop either works around it or pauses and says why.
// Paused before the restart: nothing created; paused at the new session's prompt: it is kept, the
// old one too. Done: one restart, its old session deleted — unless deleting is what failed.
const CALLS: Record<string, Expected> = {
  "session.messages": { outcome: "paused", created: 0, deleted: 0 },
  "session.summarize": { outcome: "done", created: 1, deleted: 1 },
  "session.create": { outcome: "paused", created: 0, deleted: 0 },
  "tui.session.select": { outcome: "done", created: 1, deleted: 1 },
  "session.promptAsync": { outcome: "paused", created: 1, deleted: 0 },
  "session.delete": { outcome: "done", created: 1, deleted: 0 },
  "tui.showToast": { outcome: "done", created: 1, deleted: 1 },
  "app.log": { outcome: "done", created: 1, deleted: 1 },
}
const cases = Object.entries(CALLS).flatMap(([call, expected]) =>
  (["error", "timeout", "throw"] as const).map((mode) => [call, mode, expected.outcome, expected] as const),
)

describe("SDK failure injection", () => {
  it.each(cases)("%s fails by %s → %s", async (call, mode, outcome, { created, deleted }) => {
    const name = `fault-${call.replace(/\W/g, "-")}-${mode}`
    const project = await harness().project(name, {
      configFileName: "ralph-loop-faults.json",
      configFile: JSON.stringify({ callTimeoutMs: 5_000, calls: { [call]: { mode, times: 1 } } }),
      pluginOptions: { maxRetries: 2 },
      script: {
        main: [{ text: "first half done" }, { text: "<promise>DONE</promise>" }],
        compaction: [{ text: "SUMMARY of the first half" }],
      },
    })
    const first = await project.newSession()
    await project.command(first, "ralph", "a task in two halves")
    const end = await project.events.waitFor(
      (e) => e.type === "tui.toast.show" && /^Ralph · (done|paused after an error)/.test(String(e.properties.title)),
      "the loop to end or pause",
      60_000,
    )
    const [loop] = await waitForLoopEnd(
      project,
      outcome === "done" ? { phase: "stopped", stopReason: "completed" } : { phase: "paused" },
    )

    expect(String(end.properties.title)).toMatch(outcome === "done" ? /done/ : /paused after an error/)
    // Paused: turn 1 only, nothing sent after the pause. Done: both halves.
    expect(project.requests("main")).toHaveLength(outcome === "done" ? 2 : 1)
    if (outcome === "paused") {
      expect(String(end.properties.message)).toContain(call)
      expect(loop?.detail).toContain(call)
    }
    const createdIDs = project.events
      .of("session.created")
      .map((e) => String(e.properties.info?.id))
      .filter((id) => id !== first)
    expect(createdIDs).toHaveLength(created)
    const deletedIDs = project.events.of("session.deleted").map((e) => String(e.properties.info?.id))
    expect(deletedIDs).toEqual(deleted ? [first] : [])
    // Nothing deleted without its summary and transcript on disk.
    for (const id of deletedIDs) {
      expect(existsSync(join(project.dir, ".opencode/sessions", id, "ralph_summary.md"))).toBe(true)
      expect(existsSync(join(project.dir, ".opencode/sessions", id, "transcript.json"))).toBe(true)
    }
    if (call === "session.summarize")
      expect(project.requests("main").at(-1)?.lastUser).toContain("no model summary was available")
  })
})
