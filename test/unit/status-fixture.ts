// Recorded journals for the status and report tests, written by the store's own writers
// (LoopStore.save → the journal's lines and the state file), as a running loop writes them.
import type { DiagnosticSnapshot } from "../../src/checks/diagnostics.js"
import type { Loop } from "../../src/loop/loop.js"
import type { PlanState } from "../../src/plan/plan.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { loop as fixtureLoop } from "./fixtures.js"

export interface Step {
  /** Tokens and cost of this iteration alone. */
  tokens: number
  cost?: number
  durationMs: number
  /** The checks ran: which failed, and the counts. */
  checks?: { errors: number; warnings: number; failing: string[] }
  progress: boolean
  claimed?: boolean
  decision?: string
  /** A plan loop: a story marked done by this iteration. */
  storyDone?: string
}

export const T0 = Date.parse("2026-11-24T10:00:00Z")

function snapshot(iteration: number, at: number, checks: NonNullable<Step["checks"]>): DiagnosticSnapshot {
  const names = new Set([...checks.failing, "lint"])
  return {
    iteration,
    at,
    errors: checks.errors,
    warnings: checks.warnings,
    info: 0,
    securityIssues: 0,
    testsRun: 4,
    testsFailed: checks.failing.includes("test") ? 1 : 0,
    testsPassed: 3,
    files: [],
    checks: [...names].map((name) => ({
      name,
      kind: name === "test" ? ("test" as const) : ("lint" as const),
      command: `run ${name}`,
      status: checks.failing.includes(name) ? ("failed" as const) : ("passed" as const),
      exitCode: checks.failing.includes(name) ? 1 : 0,
      durationMs: 10,
      output: "",
      errors: 0,
      warnings: 0,
      info: 0,
      security: 0,
      testsRun: 0,
      testsFailed: 0,
      testsPassed: 0,
      files: [],
    })),
  }
}

/**
 * Records a loop of `steps` (one decided iteration each) into `store`: started, then per step the
 * decision and the next iteration, and at the end `end` (the loop stays running when undefined).
 * Returns the loop as it was last saved.
 */
export async function recordLoop(
  store: LoopStore,
  id: string,
  task: string,
  steps: readonly Step[],
  options: { end?: "completed" | "max-iterations"; startAt?: number; plan?: PlanState } = {},
): Promise<Loop> {
  let now = options.startAt ?? T0
  const l: Loop = {
    ...fixtureLoop({ id, sessionID: id, phase: "running" }, { maxIterations: 20, maxRetries: 20 }),
    task,
    startedAt: now,
    iterationStartedAt: now,
  }
  if (options.plan) l.plan = structuredClone(options.plan)
  await store.save(l, "started", now)
  let tokens = 0
  let cost = 0
  for (const [i, step] of steps.entries()) {
    now += step.durationMs
    tokens += step.tokens
    cost += step.cost ?? step.tokens / 1_000_000
    l.usage = { [l.sessionID]: { tokens, cost } }
    l.breaker = { ...l.breaker, noProgress: step.progress ? 0 : l.breaker.noProgress + 1 }
    l.lastProgress = step.progress
    l.completionStreak = step.claimed ? l.completionStreak + 1 : 0
    if (step.checks) l.snapshots = [...l.snapshots, snapshot(l.iteration, now, step.checks)].slice(-20)
    if (step.storyDone && l.plan)
      l.plan = { ...l.plan, done: [...l.plan.done, { id: step.storyDone, iteration: l.iteration, checks: ["lint"] }] }
    const last = i === steps.length - 1
    l.lastDecision = step.decision ?? (last && options.end === "completed" ? "complete" : "restart")
    l.phase = "deciding"
    await store.save(l, "decided", now)
    if (last && options.end) break
    l.iteration += 1
    l.phase = "running"
    l.iterationStartedAt = now
    await store.save(l, "iteration", now)
  }
  if (options.end) {
    l.phase = "stopped"
    l.stopReason = options.end
    await store.save(l, `stopped:${options.end}`, now)
  }
  return l
}

/** Steady progress: every iteration changes something; an early claim is rejected once, the last one passes. */
export const STEADY: Step[] = [
  {
    tokens: 1200,
    durationMs: 30_000,
    progress: true,
    checks: { errors: 3, warnings: 2, failing: ["typecheck"] },
    claimed: true,
  },
  { tokens: 1100, durationMs: 25_000, progress: true },
  { tokens: 1000, durationMs: 20_000, progress: true, checks: { errors: 0, warnings: 0, failing: [] }, claimed: true },
]

/** The same check failing every iteration, though the files change. */
export const SAME_FAILURE: Step[] = [
  {
    tokens: 1000,
    durationMs: 20_000,
    progress: true,
    checks: { errors: 0, warnings: 0, failing: ["test"] },
    claimed: true,
  },
  {
    tokens: 1000,
    durationMs: 20_000,
    progress: true,
    checks: { errors: 0, warnings: 0, failing: ["test"] },
    claimed: true,
  },
  {
    tokens: 1000,
    durationMs: 20_000,
    progress: true,
    checks: { errors: 0, warnings: 0, failing: ["test"] },
    claimed: true,
  },
]

/** Nothing changes: three turns in a row without progress. */
export const NO_PROGRESS: Step[] = [
  { tokens: 900, durationMs: 10_000, progress: true },
  { tokens: 900, durationMs: 10_000, progress: false },
  { tokens: 900, durationMs: 10_000, progress: false },
  { tokens: 900, durationMs: 10_000, progress: false },
]
