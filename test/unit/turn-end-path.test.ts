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
  answers: { [kind: string]: (effect: Effect) => unknown } = {},
): { asked: string[]; spawned: string[]; progressFiles: unknown; effects: Effect[] } {
  const asked: string[] = []
  const effects: Effect[] = []
  const spawned: string[] = []
  const later: Job<unknown>[] = []
  let progressFiles: unknown
  const answer = (effect: Effect): unknown => {
    effects.push(effect)
    const scripted = answers[effect.kind]
    if (scripted) return scripted(effect)
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
  return { asked, spawned, progressFiles, effects }
}

function setUp(overrides: Partial<ReturnType<typeof makeLoop>["settings"]> = {}) {
  const manager = new LoopManager()
  const settings = {
    ...makeLoop().settings,
    ...overrides,
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

  it("starts a claim's replay reads before its checks run, for the turn end's checkpoint (issue 46)", () => {
    const { ctx, loop } = setUp({ checks: [{ name: "unit", kind: "test", command: "true" }] })
    const made = { ref: "refs/ralph/l/1", number: 1, iteration: 1, commit: "c1", at: 0 }
    const passed = { name: "unit", kind: "test", command: "true", status: "passed", exitCode: 0, durationMs: 1 }
    const counts = { errors: 0, warnings: 0, info: 0, security: 0, testsRun: 0, testsFailed: 0, testsPassed: 0 }
    const { asked, effects } = drive(
      turnEnded(ctx, loop),
      [user("the task"), assistant(["All of it is done. <promise>DONE</promise>"])],
      {
        checkpoint: () => ({ made }),
        "run-checks": () => [{ ...passed, ...counts, output: "", files: [] }],
        replay: () => ({ status: "not-needed" }),
      },
    )
    expect(asked.indexOf("replay-prepare")).toBeGreaterThan(-1)
    expect(asked.indexOf("replay-prepare")).toBeLessThan(asked.indexOf("run-checks"))
    const at = (kind: string) => effects.filter((e) => e.kind === kind).map((e) => ("at" in e ? e.at : "none"))
    expect(at("replay-prepare")).toEqual(["c1"])
    expect(at("replay")).toEqual(["c1"])
  })

  it("starts no replay reads for a turn that claims nothing", () => {
    const { ctx, loop } = setUp({ checks: [{ name: "unit", kind: "test", command: "true" }] })
    const made = { ref: "refs/ralph/l/1", number: 1, iteration: 1, commit: "c1", at: 0 }
    const { asked } = drive(turnEnded(ctx, loop), [user("the task"), assistant(["Some of it is done."])], {
      checkpoint: () => ({ made }),
    })
    expect(asked).not.toContain("replay-prepare")
  })
})
