// Usage limits are waits, not errors, in the real OpenCode: the provider's "usage limit reached,
// resets in 3 seconds" as OpenCode hands it to the plugin (an APIError after its own retries) is
// waited out, and the loop goes on by itself — no retry counted, no breaker.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { Hook } from "../harness/webhook.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

let hook: Hook
beforeAll(async () => {
  hook = await Hook.start()
})
afterAll(() => hook.close())

/** The journal's lines for the project's loops: every change, in order (a wait of a few seconds is seen there afterwards). */
function journal(
  project: Project,
): Array<{ event: string; loop: { phase: string; retries: number; iteration: number } }> {
  return readFileSync(join(project.dir, ".opencode/ralph-loop/journal.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

describe("usage limit", () => {
  it('"usage limit reached, resets in 3 seconds" (429): waited out, the loop completes with its retry count unchanged', async () => {
    // OpenCode retries a 429 itself five times (at once: retry-after 0); the sixth answer ends the turn with the error.
    const limited: Reply = {
      error: { status: 429, message: "usage limit reached, resets in 3 seconds", headers: { "retry-after": "0" } },
    }
    const project = await harness().project("usage-limit-429", {
      // Thresholds of 1: had the limit counted as an error or a turn without progress, the breaker would open.
      pluginOptions: { strategy: "continue", sameErrorThreshold: 1, noProgressThreshold: 1 },
      script: { main: (r: MockRequest) => (r.index < 6 ? limited : { text: "<promise>DONE</promise>" }) },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task behind a usage limit")
    const waiting = await waitForToast(project, /^Ralph · usage limit/)
    const done = await waitForToast(project, /^Ralph · done/)
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(waiting.properties.message).toContain("usage limit reached, resets in 3 seconds")
    const main = project.requests("main")
    expect(main).toHaveLength(7)
    // The resumed prompt went out only after the reset the provider named (3 s after its last answer, at least).
    expect(main[6]!.at - main[5]!.at).toBeGreaterThanOrEqual(3_000)
    expect(main[6]?.lastUser).toMatch(/iteration 1 of 6 · resuming/)
    expect(loop).toMatchObject({ iteration: 1, retries: 0, breaker: { state: "CLOSED", sameError: 0 } })
    expect(done.properties.message).toContain("finished in 1 iteration")
    // While it waited, the loop's state was `waiting` with reason `usage-limit`.
    const waits = journal(project).filter((entry) => entry.event.startsWith("waiting:"))
    expect(waits.map((w) => [w.event, w.loop.phase, w.loop.retries])).toEqual([["waiting:usage-limit", "waiting", 0]])
  })

  it("the same words with a status OpenCode does not retry (400): one answer, the same wait", async () => {
    const project = await harness().project("usage-limit-400", {
      pluginOptions: { strategy: "continue", sameErrorThreshold: 1 },
      script: {
        main: [
          { error: { status: 400, message: "usage limit reached, resets in 3 seconds" } },
          { text: "<promise>DONE</promise>" },
        ],
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "another task behind a usage limit")
    await waitForToast(project, /^Ralph · usage limit/)
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const main = project.requests("main")
    expect(main).toHaveLength(2)
    expect(main[1]!.at - main[0]!.at).toBeGreaterThanOrEqual(3_000)
    expect(loop).toMatchObject({ iteration: 1, retries: 0, breaker: { state: "CLOSED" } })
  })

  it("a reset 2 minutes away: the wait is notified (webhook), and /ralph-resume ends it early without a retry", async () => {
    const project = await harness().project("usage-limit-resume", {
      pluginOptions: { strategy: "continue", notify: { desktop: false, webhook: hook.url("/limit") } },
      script: {
        main: (r: MockRequest) =>
          r.lastUser.startsWith("[ralph-loop control]")
            ? { text: "ok" }
            : r.index === 0
              ? { error: { status: 400, message: "usage limit reached, resets in 2 minutes" } }
              : { text: "<promise>DONE</promise>" },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "a task behind a long usage limit")
    const [waiting] = await waitForLoopEnd(project, { phase: "waiting", wait: "usage-limit" })
    const until = waiting!.wait!.until
    const [notified] = await hook.waitFor("/limit", 1)
    expect(notified).toMatchObject({
      event: "waiting",
      reason: "usage-limit",
      task: "a task behind a long usage limit",
      iterations: 1,
      report: null,
    })

    await project.command(session, "ralph-resume", "")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const resumed = project.requests("main").find((r) => /iteration 1 of 6 · resuming/.test(r.lastUser))
    expect(resumed?.lastUser).toContain("The user resumed the loop.")
    expect(resumed!.at).toBeLessThan(until)
    expect(loop).toMatchObject({ iteration: 1, retries: 0 })
    const [, ended] = await hook.waitFor("/limit", 2)
    expect(ended).toMatchObject({ event: "ended", reason: "completed" })
  })
})
