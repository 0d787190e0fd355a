// What `ralph-loop status --json` prints: every loop of a project, and one of them in detail with
// its iteration history. A zod schema, so the JSON Schema in the docs is generated from the very
// thing the builder is checked against (docs/status.schema.json, `npm run schema`). Pure.
import { z } from "zod"
import { maxIterations, totalUsage } from "../loop/loop.js"
import { currentStory } from "../plan/plan.js"
import { limitsText, taskRetries } from "../loop/limits.js"
import { historyOf, type Histories, type IterationRow } from "./history.js"
import type { StatusLoop, StatusSaved } from "./status-loop.js"
import { struggle } from "./struggle.js"
import { guardSummary, guardSummarySchema } from "../evidence/guard-summary.js"
import { evidenceSchema } from "../evidence/record.js"

/** Bumped when a field changes meaning or goes away; new fields may be added without it. */
const STATUS_VERSION = 1

const count = z.int().min(0)
const isoTime = z.string().describe("ISO 8601 time (UTC)")
const checkCounts = z.object({
  errors: count,
  warnings: count,
  securityIssues: count,
  testsFailed: count,
  testsRun: count,
})

const struggleSchema = z.object({
  signal: z.enum(["ok", "slowing", "stuck"]).describe("ok, slowing or stuck, from the iteration history"),
  reason: z.string(),
})

const iterationSchema = z.object({
  iteration: z.int().min(1),
  decidedAt: isoTime,
  decision: z
    .string()
    .nullable()
    .describe("what the plugin decided when the turn ended (restart, complete, stop, wait, pause, …)"),
  tokens: z.number().min(0).describe("tokens of this iteration alone"),
  cost: z.number().min(0).describe("cost of this iteration alone"),
  durationMs: z.number().min(0),
  checks: checkCounts.nullable().describe("what the checks found; null when they did not run"),
  failing: z.array(z.string()).describe("names of the checks that did not pass"),
  progress: z
    .boolean()
    .nullable()
    .describe("progress as the circuit breaker counts it; null when the journal does not say"),
  rejected: z.boolean().describe("the turn claimed completion and the claim was not accepted"),
  storiesDone: count.nullable().describe("stories done after this iteration (plan loops)"),
})

const loopSummarySchema = z.object({
  id: z.string(),
  task: z.string().describe("the task's first line"),
  worktree: z
    .string()
    .nullable()
    .describe(
      "a worktree loop (/ralph --worktree, --prd --parallel): its worktree's name " +
        "(.opencode/ralph-loop/worktrees/NAME); null for the project's own",
    ),
  state: z.enum(["running", "deciding", "restarting", "waiting", "paused", "stopped"]),
  stopReason: z.string().nullable(),
  detail: z.string().nullable(),
  iteration: z.int().min(1),
  maxIterations: z
    .int()
    .min(1)
    .describe(
      "the iteration limit in force: a plan loop's maxIterations, another's the smaller of maxIterations and " +
        "maxRetries + 1",
    ),
  retries: z
    .object({
      used: count,
      max: count,
      story: z.string().nullable().describe("the plan's current story they count for; null for other loops"),
    })
    .describe(
      "restarts of the current task — of a plan loop's current story, counted again from each story done — " +
        "and maxRetries",
    ),
  limits: z.string().describe("the iteration and retry limits in force, in words"),
  strategy: z.string(),
  plan: z
    .object({
      file: z.string(),
      current: z
        .object({ id: z.string(), title: z.string() })
        .nullable()
        .describe("the story under way; null once every story is done"),
      done: count,
      total: count,
      stories: z
        .array(
          z.object({
            id: z.string(),
            title: z.string(),
            done: z.boolean(),
            evidence: evidenceSchema
              .nullable()
              .describe("what marking it done rested on; null: not done, or done before the loop"),
          }),
        )
        .describe("every story, in file order"),
    })
    .nullable()
    .describe("plan loops (/ralph --prd); null for others"),
  breaker: z.object({
    state: z.enum(["CLOSED", "OPEN", "HALF_OPEN"]),
    noProgress: count,
    sameError: count,
    reason: z.string().nullable(),
  }),
  wait: z.object({ reason: z.string(), until: isoTime }).nullable(),
  tokens: z.number().min(0),
  cost: z.number().min(0),
  startedAt: isoTime,
  updatedAt: isoTime.describe("when its state file was last written (for an ended loop: when it ended)"),
  iterationMs: z.number().min(0).nullable().describe("mean time per decided iteration"),
  lastChecks: checkCounts.extend({ iteration: z.int().min(1) }).nullable(),
  struggle: struggleSchema,
  guard: guardSummarySchema,
  evidence: evidenceSchema
    .nullable()
    .describe(
      "what the loop's completion rested on: the checks run after its last change (test counts, output sha256), " +
        "the files it changed, the review, the guard's findings; verified only when a check passed and no finding " +
        "stands. null while it runs, and for a loop that did not complete",
    ),
})

export const statusDocumentSchema = z.object({
  version: z.literal(STATUS_VERSION),
  project: z.string().describe("the project folder"),
  generatedAt: isoTime,
  loops: z.array(loopSummarySchema).describe("every loop of the project, newest first"),
  selected: loopSummarySchema
    .extend({
      sessions: z.array(z.string()).describe("the sessions it lived in, oldest first"),
      history: z.array(iterationSchema),
    })
    .nullable()
    .describe("the loop asked for, else the newest; null when the project has none"),
})
export type StatusDocument = z.infer<typeof statusDocumentSchema>
export type LoopSummary = z.infer<typeof loopSummarySchema>
export type IterationJSON = z.infer<typeof iterationSchema>

const iso = (at: number) => new Date(at).toISOString()

function loopSummary({ loop, savedAt, worktree }: StatusSaved, rows: readonly IterationRow[]): LoopSummary {
  const usage = totalUsage(loop)
  const last = loop.snapshots.at(-1)
  const story = loop.plan ? currentStory(loop.plan) : undefined
  const durations = rows.map((r) => r.durationMs)
  return {
    id: loop.id,
    task: loop.task.split("\n")[0] ?? "",
    worktree: worktree?.name ?? null,
    state: loop.phase,
    stopReason: loop.stopReason ?? null,
    detail: loop.detail ?? null,
    iteration: loop.iteration,
    maxIterations: maxIterations(loop),
    retries: { used: Math.max(0, taskRetries(loop)), max: loop.settings.maxRetries, story: story?.id ?? null },
    limits: limitsText(loop.settings, loop.plan !== undefined),
    strategy: loop.settings.strategy,
    plan: loop.plan ? planSummary(loop.plan, story) : null,
    breaker: {
      state: loop.breaker.state,
      noProgress: loop.breaker.noProgress,
      sameError: loop.breaker.sameError,
      reason: loop.breaker.reason ?? null,
    },
    wait: loop.phase === "waiting" && loop.wait ? { reason: loop.wait.reason, until: iso(loop.wait.until) } : null,
    tokens: usage.tokens,
    cost: usage.cost,
    startedAt: iso(loop.startedAt),
    updatedAt: iso(savedAt),
    iterationMs: durations.length ? Math.round(durations.reduce((a, b) => a + b, 0) / durations.length) : null,
    lastChecks: last
      ? {
          iteration: last.iteration,
          errors: last.errors,
          warnings: last.warnings,
          securityIssues: last.securityIssues,
          testsFailed: last.testsFailed,
          testsRun: last.testsRun,
        }
      : null,
    struggle: struggle(rows, loop.stopReason),
    guard: guardSummary(loop),
    evidence: loop.phase === "stopped" ? (loop.evidence ?? null) : null,
  }
}

function planSummary(
  plan: NonNullable<StatusLoop["plan"]>,
  story: { id: string; title: string } | undefined,
): NonNullable<LoopSummary["plan"]> {
  const done = new Map(plan.done.map((d) => [d.id, d]))
  const stories = plan.stories.map((s) => ({
    id: s.id,
    title: s.title,
    done: done.has(s.id),
    evidence: done.get(s.id)?.evidence ?? null,
  }))
  return {
    file: plan.file,
    current: story ? { id: story.id, title: story.title } : null,
    done: plan.done.length,
    total: plan.stories.length,
    stories,
  }
}

const iterationJSON = (row: IterationRow): IterationJSON => ({
  iteration: row.iteration,
  decidedAt: iso(row.at),
  decision: row.decision ?? null,
  tokens: row.tokens,
  cost: row.cost,
  durationMs: row.durationMs,
  checks: row.checks ?? null,
  failing: row.failing,
  progress: row.progress ?? null,
  rejected: row.rejected,
  storiesDone: row.storiesDone ?? null,
})

/**
 * The document for `loops` (newest first) with their histories; `chosen`: the id (or its start)
 * of the loop to show in detail, else the newest. Undefined `selected` when `chosen` matches none.
 */
export function statusDocument(
  project: string,
  loops: readonly StatusSaved[],
  history: Histories,
  chosen: string | undefined,
  now: number,
): StatusDocument {
  const pick =
    chosen === undefined
      ? loops[0]
      : (loops.find((l) => l.loop.id === chosen) ?? loops.find((l) => l.loop.id.startsWith(chosen)))
  const rows = (loop: StatusLoop) => historyOf(history, loop)
  return {
    version: STATUS_VERSION,
    project,
    generatedAt: iso(now),
    loops: loops.map((l) => loopSummary(l, rows(l.loop))),
    selected: pick
      ? {
          ...loopSummary(pick, rows(pick.loop)),
          sessions: [...pick.loop.lineage, pick.loop.sessionID],
          history: rows(pick.loop).map(iterationJSON),
        }
      : null,
  }
}
