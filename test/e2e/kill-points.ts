// The kill points of a running loop and the test of one (test/e2e/kill-points*.e2e.test.ts run them).
// Kill OpenCode (SIGKILL, nothing flushed) at named points of a running loop — from the start of a
// loop through a full `recreate` restart to its completion, and mid-write of the state files — then
// start it again on the same data. The loop must finish with its counts intact (2 iterations, 1
// restart), with one session, one summary paid for and one prompt per iteration: never a second
// live loop, never a lost or repeated step, never a state-file complaint for a crash it survived.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, onTestFinished } from "vitest"
import type { Project } from "../harness/harness.js"
import { gate, type Gate, type MockRequest } from "../harness/mock-model.js"
import { sessionIDs, sharedHarness, waitForLoopEnd, waitForStreamedText, waitForToast } from "./helpers.js"

type Strategy = "recreate" | "continue"

interface KillPoint {
  /** A CrashPoint of src/host/faults.ts, or "external": the test kills OpenCode itself. */
  at: string
  nth?: number
  strategy: Strategy
  /** Summaries the model is asked for in all (a summary a kill cut off is asked for again). */
  summaries?: number
  /**
   * Iteration 2's prompt is out: the kill may land while its turn streams (the old session's
   * retirement runs beside that turn, so which comes first depends on the machine's load). Then
   * recovery resumes iteration 2 once — a redo, never a repeat of its prompt.
   */
  iterationTwoMayBeCut?: boolean
  why: string
}

/** Every kill point, in the order a loop reaches them; the test files take a part each. */
export const POINTS: KillPoint[] = [
  {
    at: "loop.started",
    strategy: "recreate",
    why: "/ralph ran, the loop is on disk, the task has not reached the model",
  },
  { at: "turn.ended", strategy: "recreate", why: "the first turn ended, nothing decided yet" },
  { at: "turn.decided", strategy: "recreate", why: "the restart is decided; its state may not be on disk" },
  {
    at: "state.mid-write",
    nth: 2,
    strategy: "recreate",
    why: "mid-write of the decision and its restart (temp file written, not renamed)",
  },
  { at: "journal.mid-append", nth: 2, strategy: "recreate", why: "half of the decision's journal lines appended" },
  { at: "restart.begun", strategy: "recreate", why: "the restart began, nothing sent yet" },
  { at: "summarize.before", strategy: "recreate", why: "just before the summary is asked for" },
  { at: "external", strategy: "recreate", summaries: 2, why: "while the model streams the summary" },
  {
    at: "summarize.after",
    strategy: "recreate",
    why: "the summary is in the old session, not yet in ralph_summary.md",
  },
  { at: "summary.written", strategy: "recreate", why: "ralph_summary.md written, no new session yet" },
  { at: "state.mid-write", nth: 3, strategy: "recreate", why: "mid-write of the new session's id" },
  { at: "session.created", strategy: "recreate", why: "the new session exists and is empty" },
  { at: "session.selected", strategy: "recreate", why: "the TUI was pointed at the new session" },
  { at: "state.mid-write", nth: 4, strategy: "recreate", why: "mid-write of the state that counts iteration 2" },
  { at: "iteration.saved", strategy: "recreate", why: "iteration 2 is on disk, its prompt not sent" },
  {
    at: "prompt.sent",
    iterationTwoMayBeCut: true,
    strategy: "recreate",
    why: "iteration 2's prompt was just accepted",
  },
  { at: "retire.idle", iterationTwoMayBeCut: true, strategy: "recreate", why: "the old session is idle, not archived" },
  {
    at: "transcript.written",
    iterationTwoMayBeCut: true,
    strategy: "recreate",
    why: "the old session is archived, not deleted",
  },
  {
    at: "session.deleted",
    iterationTwoMayBeCut: true,
    strategy: "recreate",
    why: "the old session is deleted; the state does not know yet",
  },
  { at: "turn.decided", nth: 2, strategy: "recreate", why: "completion decided, the stop not on disk" },
  { at: "turn.decided", strategy: "continue", why: "strategy continue: the restart is decided" },
  { at: "iteration.saved", strategy: "continue", why: "strategy continue: iteration 2 on disk, its prompt not sent" },
  {
    at: "prompt.sent",
    iterationTwoMayBeCut: true,
    strategy: "continue",
    why: "strategy continue: iteration 2's prompt just accepted",
  },
]

const isLoopPrompt = (r: MockRequest) => r.lastRole === "user"
const ITERATION_TWO = /\[Ralph loop · iteration 2 of 6 · (fresh|same) session\]/

/**
 * Iteration 1 reports half the work; anything of iteration 2 finishes. For the external kill the
 * first summary streams until `cutOff` opens (the kill lands in it).
 */
function script(point: KillPoint, cutOff: Gate) {
  return {
    main: (r: MockRequest) =>
      /\[Ralph loop · iteration 2 of/.test(r.lastUser)
        ? { text: "second half done <promise>DONE</promise>" }
        : { text: "first half done" },
    compaction:
      point.at === "external"
        ? [
            { text: "SUMMARY of the first half, cut off", holdAfterFirstChunk: cutOff.opened },
            { text: "SUMMARY of the first half" },
          ]
        : [{ text: "SUMMARY of the first half" }],
  }
}

const name = (p: KillPoint) => `kill-${p.strategy}-${p.at.replace(/\W/g, "-")}${p.nth ? `-${p.nth}` : ""}`

function stateOf(project: Project): { loop: Record<string, unknown> } {
  const dir = join(project.dir, ".opencode/ralph-loop/loops")
  const files = readdirSync(dir)
  expect(
    files.filter((f) => f.endsWith(".tmp")),
    "no temp file of a cut-off write is left",
  ).toEqual([])
  const states = files.filter((f) => f.endsWith(".json"))
  expect(states, "one loop on disk").toHaveLength(1)
  return JSON.parse(readFileSync(join(dir, states[0]!), "utf8"))
}

async function userTexts(project: Project, sessionID: string): Promise<string[]> {
  const { data } = await project.client.session.messages({ path: { id: sessionID } })
  return (data ?? [])
    .filter((m) => m.info.role === "user")
    .map((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")).join(""))
}

/**
 * One test per kill point of `points`, on a server of the test file's own (two files share the 23
 * points, so two workers run them side by side: each point starts OpenCode twice).
 */
export function describeKillPoints(points: readonly KillPoint[]): void {
  const harness = sharedHarness({ env: { RALPH_LOOP_FAULT_INJECTION: "1" } })
  describe("OpenCode killed at a point of a running loop, then started again on the same data", () => {
    it.each(points.map((p) => [`${p.at}${p.nth ? ` #${p.nth}` : ""} (${p.strategy}): ${p.why}`, p] as const))(
      "%s",
      async (_title, point) => {
        const h = harness()
        const cutOff = gate()
        const project = await h.project(name(point), {
          pluginOptions: { strategy: point.strategy },
          configFileName: "ralph-loop-faults.json",
          configFile: JSON.stringify(
            point.at === "external" ? { calls: {} } : { calls: {}, crash: { at: point.at, nth: point.nth ?? 1 } },
          ),
          script: script(point, cutOff),
        })
        onTestFinished(() => project.close())
        const first = await project.newSession()
        const crashed = h.server
        void project.command(first, "ralph", "a task in two halves").catch(() => undefined)
        if (point.at === "external") {
          await waitForStreamedText(project, /^SUMMARY/)
          await crashed.stop("SIGKILL")
          cutOff.open()
        } else {
          expect(await crashed.exited(60_000)).toBe("SIGKILL")
          expect(readFileSync(join(project.dir, ".opencode/ralph-loop-crashed"), "utf8").trim()).toBe(point.at)
        }
        await h.restartServer("SIGKILL")
        expect(h.server.pid).not.toBe(crashed.pid)

        const done = await waitForToast(project, /^Ralph · done/, 90_000)
        await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
        // Counts intact: two iterations, one restart — whatever the kill cut off was redone, not repeated.
        expect(done.properties.message).toContain("finished in 2 iterations")
        const { loop } = stateOf(project)
        expect(loop).toMatchObject({
          phase: "stopped",
          stopReason: "completed",
          iteration: 2,
          retries: 1,
          retiring: [],
        })
        // One loop: one done toast, no pause, no state-file complaint.
        const titles = project.events.toasts().map((t) => t.title ?? "")
        expect(titles.filter((t) => t === "Ralph · done")).toHaveLength(1)
        expect(titles.filter((t) => /paused|state file/.test(t))).toEqual([])
        // One session left, the loop's; iteration 2 was prompted exactly once in it.
        const sessions = await sessionIDs(project)
        expect(sessions).toEqual([loop.sessionID])
        if (point.strategy === "continue") expect(loop.sessionID).toBe(first)
        else expect(loop.lineage).toEqual([first])
        expect((await userTexts(project, String(loop.sessionID))).filter((t) => ITERATION_TWO.test(t))).toHaveLength(1)
        // The summary was paid for once (twice only when the kill cut the first one off).
        expect(project.requests("compaction")).toHaveLength(point.strategy === "continue" ? 0 : (point.summaries ?? 1))
        // One model request per iteration, both loop prompts: nothing cut off was sent twice, nothing
        // after the end. Iteration 2 reached the model by its own prompt, or — when the kill cut its
        // turn — by one resume (with or without its own prompt having reached the model first).
        const main = project.requests("main")
        const fresh = main.filter((r) => ITERATION_TWO.test(r.lastUser))
        const resumed = main.filter((r) => /\[Ralph loop · iteration 2 of 6 · resuming\]/.test(r.lastUser))
        expect(fresh.length).toBeLessThanOrEqual(1)
        expect(resumed.length).toBeLessThanOrEqual(point.iterationTwoMayBeCut ? 1 : 0)
        expect(fresh.length + resumed.length).toBeGreaterThanOrEqual(1)
        expect(main).toHaveLength(1 + fresh.length + resumed.length)
        expect(main.filter(isLoopPrompt)).toHaveLength(main.length)
      },
    )
  })
}
