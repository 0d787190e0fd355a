// The shape of a loop on disk (schema version 1) and of a journal line, checked with zod on every read.
import { z } from "zod"
import { checkSchema, DEFAULT_SETTINGS, settingSchemas, SETTING_KEYS } from "../config/schema.js"

export const SCHEMA_VERSION = 1

/** Stored as given; keys a newer version added are filled from the defaults on load (upgrades keep loops). */
const loopSettings = z.object(
  Object.fromEntries(SETTING_KEYS.filter((k) => k !== "activation").map((k) => [k, settingSchemas[k]])) as {
    [K in Exclude<keyof typeof settingSchemas, "activation">]: (typeof settingSchemas)[K]
  },
)

const count = z.number().int().min(0)
const phase = z.enum(["running", "deciding", "restarting", "waiting", "paused", "stopped"])
const stopReason = z.enum(["completed", "retries-exhausted", "max-iterations", "token-budget", "cost-budget", "time-budget", "auth-error", "stagnation", "cancelled", "session-deleted", "replaced"])
const sessionID = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/)

/** A plan loop's stories (as read at its start) and the ones the plugin marked done. */
const plan = z.object({
  file: z.string().min(1),
  shape: z.enum(["userStories", "stories"]),
  stories: z.array(
    z.object({
      id: z.string().min(1),
      title: z.string(),
      description: z.string().optional(),
      acceptanceCriteria: z.array(z.string()),
      priority: z.number().optional(),
      dependsOn: z.array(z.string()),
      checks: z.array(checkSchema),
    }),
  ),
  done: z.array(z.object({ id: z.string(), iteration: count, checks: z.array(z.string()) })),
})

const core = {
  id: sessionID,
  task: z.string().min(1),
  settings: loopSettings.partial().transform((stored) => {
    const { activation: _activation, ...defaults } = DEFAULT_SETTINGS
    return { ...defaults, ...stored }
  }),
  startedAt: z.number(),
  sessionID,
  lineage: z.array(sessionID),
  iteration: z.number().int().min(1),
  retries: count,
  phase,
  stopReason: stopReason.optional(),
}

export const persistedLoopSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  savedAt: z.string(),
  owner: z.object({ pid: z.number().int(), host: z.string() }).optional(),
  loop: z.object({
    ...core,
    needsInstruction: z.boolean(),
    lastDecidedMessageID: z.string().optional(),
    breaker: z.object({
      state: z.enum(["CLOSED", "OPEN", "HALF_OPEN"]),
      noProgress: count,
      sameError: count,
      lastError: z.string().optional(),
      openedAt: z.number().optional(),
      reason: z.string().optional(),
    }),
    calls: z.object({ startedAt: z.number().optional(), count }),
    usage: z.record(z.string(), z.object({ tokens: z.number().min(0), cost: z.number().min(0) })),
    progress: z.object({
      workTree: z.string().optional(),
      todosCompleted: count,
      todosSession: z.string().optional(),
      recentOutputs: z.array(z.string()),
    }),
    completionStreak: count,
    backoffs: count,
    hints: z.array(z.string()),
    snapshots: z.array(z.any()).default([]),
    startHead: z.string().optional(),
    iterationStartedAt: z.number().default(0),
    lastDecision: z.string().optional(),
    gotchas: z.array(z.object({ title: z.string(), message: z.string(), files: z.array(z.string()), iteration: z.number() })).default([]),
    wait: z.object({ reason: z.enum(["backoff", "breaker", "call-limit"]), until: z.number(), then: z.enum(["resume", "next"]), fresh: z.boolean().optional() }).optional(),
    lastTurn: z.any().optional(),
    restart: z.object({ fresh: z.boolean(), note: z.string().optional(), feedback: z.string().optional(), sessionID: sessionID.optional() }).optional(),
    retiring: z.array(sessionID).default([]),
    plan: plan.optional(),
    detail: z.string().optional(),
  }),
})

/** Per decision: what was decided, the checks, tokens, cost and how long the iteration took. */
const record = z.object({
  decision: z.string().optional(),
  tokens: z.number(),
  cost: z.number(),
  durationMs: z.number(),
  checks: z.object({ errors: count, warnings: count, securityIssues: count, testsFailed: count, testsRun: count }).optional(),
})

/** A plan loop's start and decisions carry its plan, so a loop rebuilt from the journal keeps its place in the plan. */
export const journalEntrySchema = z.object({ at: z.string(), event: z.string(), loop: z.object(core), record: record.optional(), plan: plan.optional() })
export type JournalEntry = z.infer<typeof journalEntrySchema>
