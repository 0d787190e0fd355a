// What `ralph-loop status` reads of a loop's state file: the fields it shows, checked with zod —
// not the whole loop (settings, every check's output), which took 100 ms for 1,000 files.
import { z } from "zod"
import { DEFAULT_SETTINGS } from "../config/schema.js"
import { diagnosticSnapshotSchema } from "../checks/diagnostics.js"
import { loopSettingsSchema } from "../loop/loop.js"
import { SCHEMA_VERSION, storedLoopSchema } from "../store/loop-schema.js"
import { parseStateFile, savedAtOf } from "../store/saved-loops.js"

const { strategy, maxRetries, maxIterations, summaryPath } = DEFAULT_SETTINGS

const statusLoopSchema = storedLoopSchema
  .pick({
    id: true,
    task: true,
    startedAt: true,
    sessionID: true,
    lineage: true,
    iteration: true,
    retries: true,
    phase: true,
    stopReason: true,
    detail: true,
    breaker: true,
    usage: true,
    wait: true,
    plan: true,
    guard: true,
    accepted: true,
    refusedAccepts: true,
    evidence: true,
  })
  .extend({
    // Keys a newer version added get their defaults, as the store does.
    settings: loopSettingsSchema
      .pick({ strategy: true, maxRetries: true, maxIterations: true, summaryPath: true })
      .partial()
      .transform((stored) => ({ strategy, maxRetries, maxIterations, summaryPath, ...stored })),
    snapshots: z
      .array(
        diagnosticSnapshotSchema.pick({
          iteration: true,
          errors: true,
          warnings: true,
          securityIssues: true,
          testsRun: true,
          testsFailed: true,
        }),
      )
      .default([]),
  })
export type StatusLoop = z.infer<typeof statusLoopSchema>

const statusFileSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  savedAt: z.string(),
  loop: statusLoopSchema,
})

/** A loop as the status shows it, and when its file was last written (for an ended loop: when it ended). */
export interface StatusSaved {
  loop: StatusLoop
  savedAt: number
  /** A worktree loop: its worktree's name and folder (its files are there). */
  worktree?: { name: string; path: string }
}

/** A state file's text; undefined when it is not one. */
export function parseStatusLoop(text: string): StatusSaved | undefined {
  try {
    const data = parseStateFile(text, statusFileSchema)
    return { loop: data.loop, savedAt: savedAtOf(data) }
  } catch {
    return undefined
  }
}
