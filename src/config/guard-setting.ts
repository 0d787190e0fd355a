// The `guard` setting (issue 39): what a claim of done meets when the loop's changes weaken its own
// checks. `refuse` (the default) refuses the claim like a failing check; `warn` records the findings
// and lets the claim through; `off` reads nothing. `accept` lists findings the user accepts by their
// key (findingKey: the prompt, the journal and `ralph-loop status` print it), as the loop began with
// them: a key added while it runs could be the model's (src/engine/jobs/guard.ts).
import { z } from "zod"

const GUARD_MODES = ["refuse", "warn", "off"] as const
export type GuardMode = (typeof GUARD_MODES)[number]

const modeSchema = z.enum(GUARD_MODES)

export const guardSettingSchema = z
  .union([
    modeSchema,
    z.strictObject({
      mode: modeSchema.default("refuse").describe("refuse (default), warn or off."),
      accept: z
        .array(z.string().trim().min(1, "must not be empty"))
        .max(200, "at most 200 keys")
        .default([])
        .describe("Findings accepted, by the key the prompt and `ralph-loop status` name (kind:file:name:text)."),
    }),
  ])
  .describe(
    "The guard on a claim of done: changes since the loop began that skip, focus or remove tests, change what a " +
      "check runs, or add suppressions. refuse (default): the claim is refused like a failing check; warn: " +
      "recorded only; off. Or { mode, accept: [keys] } to accept named findings.",
  )
export type GuardSetting = z.output<typeof guardSettingSchema>

export const GUARD_DEFAULT: GuardSetting = "refuse"

export const guardMode = (setting: GuardSetting | undefined): GuardMode =>
  setting === undefined ? "refuse" : typeof setting === "string" ? setting : setting.mode

export const guardAccepted = (setting: GuardSetting | undefined): string[] =>
  setting === undefined || typeof setting === "string" ? [] : setting.accept
