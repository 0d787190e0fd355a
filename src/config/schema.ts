// The plugin's settings: one zod schema per key (so one bad key never discards the others),
// their defaults, and their meaning. Seed 000's keys keep their names.
import { z } from "zod"

export const STRATEGIES = ["recreate", "fresh", "continue"] as const
export type Strategy = (typeof STRATEGIES)[number]

export const settingSchemas = {
  promiseWord: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .refine((word) => !/[<>]/.test(word), "must not contain < or >")
    .describe("The word the model writes as <promise>WORD</promise> when the task is completely done."),
  maxRetries: z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(1000, "must be at most 1000")
    .describe("How many times the loop restarts a turn that ended without the promise; then it stops with a warning."),
  summaryPath: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .describe("Directory, relative to the project, for <summaryPath>/<sessionID>/ralph_summary.md."),
  autoRestart: z
    .boolean()
    .describe("false: report a missing promise with a toast instead of re-prompting."),
  strategy: z
    .enum(STRATEGIES)
    .describe("recreate: fresh session, old one archived and deleted; fresh: fresh session, old one kept; continue: re-prompt the same session."),
  activation: z
    .enum(["command", "always"])
    .describe("command: loops start with /ralph <task>; always: the first message of every new session starts one."),
} as const

export type Settings = { [K in keyof typeof settingSchemas]: z.output<(typeof settingSchemas)[K]> }
export type SettingKey = keyof Settings

export const DEFAULT_SETTINGS: Settings = {
  promiseWord: "DONE",
  maxRetries: 5,
  summaryPath: ".opencode/sessions/",
  autoRestart: true,
  strategy: "recreate",
  activation: "command",
}

export const SETTING_KEYS = Object.keys(settingSchemas) as SettingKey[]

/** The JSON Schema of `ralph-loop.jsonc`, shipped in the package as ralph-loop.schema.json. */
export function settingsJsonSchema(): Record<string, unknown> {
  const shape = Object.fromEntries(
    SETTING_KEYS.map((key) => [key, (settingSchemas[key] as z.ZodType<unknown>).default(DEFAULT_SETTINGS[key])]),
  )
  return {
    ...z.toJSONSchema(z.object(shape).partial().extend({ $schema: z.string().optional() }).strict(), { io: "input" }),
    title: "ralph-loop settings",
  }
}
