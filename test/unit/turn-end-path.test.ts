// The end of a loop's turn, driven effect by effect with scripted answers: what is read while the
// turn settles (the sample, the checkpoint, the progress log's changed files) stays out of the path
// from the settle's end to the next prompt.
import { describe, expect, it } from "vitest"
import type { Effect, Job } from "../../src/effects/kernel.js"
import type { JobContext } from "../../src/engine/jobs/context.js"
import { turnEnded } from "../../src/engine/jobs/turn-ended.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import { ContinuationWatch } from "../../src/continuations/watch.js"
import { LoopManager } from "../../src/loop/manager.js"
import { PlanRequests } from "../../src/plan/requests.js"
import type { MessageWithParts } from "../../src/loop/read-turn.js"
import { assistant, loop as makeLoop, user } from "./fixtures.js"

const SAMPLE = { workTree: "tree-1", todosCompleted: 0, sessionID: "ses_a", openTodos: [] }

/**
 * Drives the job; every effect asked for, in order (an `all` as `all(a, b, …)`, a spawned job as
 * `spawn`, its effects driven after the job's own), and the progress entry written.
 */
function drive(
  job: Job<unknown>,
  messages: MessageWithParts[],
): { asked: string[]; spawned: string[]; progressFiles: unknown } {
  const asked: string[] = []
  const spawned: string[] = []
  const later: Job<unknown>[] = []
  let progressFiles: unknown
  const answer = (effect: Effect): unknown => {
    switch (effect.kind) {
      case "all":
        return effect.effects.map(answer)
      case "sample":
        return SAMPLE
      case "checkpoint":
        return { notGit: true }
      case "guard-read":
        return { unread: "the project is not a git repository" }
      case "changed-files":
        return ["src/a.ts"]
      case "messages":
        return messages
      case "append-progress":
        progressFiles = effect.entry.files
        return undefined
      case "spawn":
        later.push(effect.job)
        return undefined
      default:
        return undefined
    }
  }
  const run = (job: Job<unknown>, into: string[]) => {
    let step = job.next()
    while (!step.done) {
      const effect = step.value
      if (effect.kind !== "log" && effect.kind !== "toast" && effect.kind !== "reached")
        into.push(effect.kind === "all" ? `all(${effect.effects.map((e) => e.kind).join(", ")})` : effect.kind)
      step = job.next(answer(effect))
    }
  }
  run(job, asked)
  for (const job of later) run(job, spawned)
  return { asked, spawned, progressFiles }
}

function setUp() {
  const manager = new LoopManager()
  const settings = {
    ...makeLoop().settings,
    strategy: "continue" as const,
    settleMs: 150,
    noProgressThreshold: 1000,
    maxIterations: 100,
  }
  const { loop } = manager.start("ses_a", "the task", settings, 0)
  manager.nextIteration(loop, "ses_a", 0)
  manager.promptSent(loop, 0)
  manager.onBusy("ses_a")
  expect(manager.takeIdle("ses_a")).toBe(loop)
  const ctx: JobContext = {
    directory: "/p",
    manager,
    plans: new PlanRequests(),
    continuations: new ContinuationWatch(),
    now: () => 1_000,
    settings: () => DEFAULT_SETTINGS,
  }
  return { ctx, loop }
}

describe("a loop's turn end", () => {
  it("reads the turn's messages and the progress log's changed files while the turn settles, and writes the progress entry beside the next prompt, not before it", () => {
    const { ctx, loop } = setUp()
    const { asked, spawned, progressFiles } = drive(turnEnded(ctx, loop), [
      user("the task"),
      assistant(["Some of it is done; more is left."]),
    ])
    // The settle: its wait, and beside it the reads of the ended turn.
    expect(asked[0]?.startsWith("all(")).toBe(true)
    expect(asked[0]).toContain("sleep")
    expect(asked[0]).toContain("messages")
    expect(asked[0]).toContain("changed-files")
    // From the settle's end to the prompt: the state file's check, the progress entry handed to a job
    // of its own, the state on disk, the prompt — no call to OpenCode, git or the progress log.
    expect(asked.slice(1, asked.indexOf("prompt") + 1)).toEqual(["verify-state", "spawn", "persisted", "prompt"])
    expect(spawned).toEqual(["append-progress"])
    expect(progressFiles).toEqual(["src/a.ts"])
  })

  it("writes a completing turn's progress entry before the loop stops, not beside it", () => {
    const { ctx, loop } = setUp()
    const { asked, spawned, progressFiles } = drive(turnEnded(ctx, loop), [
      user("the task"),
      assistant(["All of it is done. <promise>DONE</promise>"]),
    ])
    expect(loop.phase).toBe("stopped")
    expect(asked).toContain("append-progress")
    expect(spawned).toEqual([])
    expect(progressFiles).toEqual(["src/a.ts"])
  })
})
