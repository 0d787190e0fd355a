// The shape of a loop on disk (schema version 1) and of a journal line, checked with zod on every
// read. Composed of the schemas beside each part of a loop (src/loop/); what this file adds is
// what reading an older file needs: fields and settings a newer version added get their defaults.
import { z } from "zod"
import { DEFAULT_SETTINGS } from "../config/schema.js"
import { loopSettingsSchema, loopStateSchema } from "../loop/loop.js"
import { acceptedSchema, refusedAcceptSchema } from "../evidence/accepted.js"

export const SCHEMA_VERSION = 1

const { activation: _activation, ...settingDefaults } = DEFAULT_SETTINGS

/** Stored as given; keys a newer version added are filled from the defaults on load (upgrades keep loops). */
const storedSettings = loopSettingsSchema.partial().transform((stored) => ({ ...settingDefaults, ...stored }))

const field = loopStateSchema.shape

export const storedLoopSchema = loopStateSchema.extend({
  settings: storedSettings,
  snapshots: field.snapshots.default([]),
  iterationStartedAt: field.iterationStartedAt.default(0),
  gotchas: field.gotchas.default([]),
  targets: field.targets.default([]),
  retiring: field.retiring.default([]),
})

export const persistedLoopSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  savedAt: z.string(),
  /** The instance that runs the loop; its heartbeat is processes/<boot>.json (src/owner/presence-files.ts). */
  owner: z.object({ pid: z.number().int(), host: z.string(), boot: z.string().optional() }).optional(),
  loop: storedLoopSchema,
})
export type PersistedLoop = z.input<typeof persistedLoopSchema>

/** Per decision: what was decided, the checks, tokens, cost and how long the iteration took. */
const count = z.int().min(0)
export const iterationRecordSchema = z.object({
  decision: z.string().optional(),
  tokens: z.number(),
  cost: z.number(),
  durationMs: z.number(),
  checks: z
    .object({ errors: count, warnings: count, securityIssues: count, testsFailed: count, testsRun: count })
    .optional(),
  /** The checks that did not pass in this iteration's run (absent: they did not run, or an older journal). */
  failing: z.array(z.string()).optional(),
  /** The breaker after the decision: its counters say whether the iteration made progress. */
  breaker: z.object({ state: z.enum(["CLOSED", "OPEN", "HALF_OPEN"]), noProgress: count, sameError: count }).optional(),
  /**
   * Whether the iteration made progress as the breaker counts it (absent: an older journal, or a wait for the same
   * turn).
   */
  progress: z.boolean().optional(),
  /** The turn claimed completion (promise or STATUS: COMPLETE). */
  claimed: z.boolean().optional(),
  /**
   * What the guard found in the loop's changes at this claim (issue 39), one line each (findingText; accepted ones say
   * so).
   */
  weakened: z.array(z.string()).optional(),
})

/** What a journal line keeps of the loop: enough to rebuild it when its file is damaged. */
const journalLoop = storedLoopSchema.pick({
  id: true,
  task: true,
  settings: true,
  startedAt: true,
  sessionID: true,
  lineage: true,
  iteration: true,
  retries: true,
  phase: true,
  stopReason: true,
  pauseCause: true,
  detail: true,
})

/** A plan loop's start and decisions carry its plan, so a loop rebuilt from the journal keeps its place in the plan. */
export const journalEntrySchema = z.object({
  at: z.string(),
  event: z.string(),
  loop: journalLoop,
  record: iterationRecordSchema.optional(),
  plan: field.plan,
  /** An `accepted` line: what the user has accepted for the loop so far (issue 46). */
  accepted: z.array(acceptedSchema).optional(),
  /** An `accept-refused` line: the accept a model's shell ran. */
  refusedAccept: refusedAcceptSchema.optional(),
})
export type JournalEntry = z.infer<typeof journalEntrySchema>
