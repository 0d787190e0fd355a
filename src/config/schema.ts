import { z } from "zod"
import { OPENCODE_DIR } from "../project/own-files.js"
import { checkRunSettingSchemas, claimSettingSchemas } from "./check-settings.js"
import { featureSettingSchemas } from "./feature-settings.js"
import { gitSettingSchemas } from "./git-settings.js"
import { limitSettingSchemas } from "./limit-settings.js"
import { loopSettingSchemas } from "./loop-settings.js"
import { NOTIFY_EVENTS, notifySchema } from "./notify-settings.js"
import { reviewSchema } from "./review-settings.js"
import { GUARD_DEFAULT, guardSettingSchema } from "./guard-setting.js"

export { CHECK_KINDS, checkSchema, type CheckConfig, type CheckKind } from "./check-settings.js"
export type { Strategy } from "./loop-settings.js"
export type { NotifyEvent, NotifySettings } from "./notify-settings.js"

/** Every setting, in the order the reference and the JSON Schema list them. */
export const settingSchemas = {
  ...loopSettingSchemas,
  ...limitSettingSchemas,
  ...claimSettingSchemas,
  ...gitSettingSchemas,
  enabled: z
    .boolean()
    .describe(
      "false: the plugin is off — no commands, no hooks — from OpenCode's next start, as RALPH_LOOP_DISABLE=1 " +
        "(any settings layer; the last that sets it wins).",
    ),
  ...checkRunSettingSchemas,
  ...featureSettingSchemas,
  notify: notifySchema,
  review: reviewSchema,
  guard: guardSettingSchema,
} as const

export type Settings = { [K in keyof typeof settingSchemas]: z.output<(typeof settingSchemas)[K]> }
export type SettingKey = keyof Settings

export const DEFAULT_SETTINGS: Settings = {
  promiseWord: "DONE",
  maxRetries: 5,
  summaryPath: `${OPENCODE_DIR}/sessions/`,
  autoRestart: true,
  strategy: "recreate",
  activation: "command",
  maxIterations: 50,
  maxCallsPerHour: 100,
  rateLimitWindowMinutes: 60,
  cooldownMinutes: 30,
  noProgressThreshold: 3,
  sameErrorThreshold: 5,
  maxTokens: 5_000_000,
  maxCost: 25,
  maxWallMinutes: 480,
  backoffBaseSeconds: 30,
  backoffMaxMinutes: 30,
  statusBlock: false,
  exitGate: "promise",
  checks: [],
  autoDetectChecks: true,
  autoCommit: false,
  worktree: false,
  mergeStrategy: "ff-or-branch",
  maxParallelLoops: 4,
  enabled: true,
  checkAfter: "claim",
  completeOnCriteria: true,
  zeroErrors: true,
  zeroWarnings: false,
  zeroSecurity: false,
  testsPass: true,
  stagnationLimit: 5,
  resumeOnStart: "auto",
  settleMs: 150,
  requireTodosDone: true,
  memoryMaxEntries: 50,
  memoryBudgetChars: 2_000,
  prdPath: ".opencode/prd.json",
  completionMarkers: [],
  disabledFeatures: [],
  todoContinuationDelaySeconds: 3,
  todoContinuationMax: 3,
  keywords: ["ralph:"],
  autoContinue: false,
  autoContinueMax: 3,
  usageLimitMaxWaitHours: 6,
  notify: { desktop: true, on: [...NOTIFY_EVENTS] },
  review: false,
  guard: GUARD_DEFAULT,
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
