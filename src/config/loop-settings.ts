// The settings of how a loop runs: its promise word, its restarts and their strategy, how loops start.
import { z } from "zod"

const STRATEGIES = ["recreate", "fresh", "continue"] as const
export type Strategy = (typeof STRATEGIES)[number]

/** Keys in the settings' order. */
export const loopSettingSchemas = {
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
    .describe(
      "How many times the loop restarts a task not done yet (a plan loop: the current story, counted again from " +
        "each story done); then it stops with a warning. See Iterations and retries below.",
    ),
  summaryPath: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .describe("Directory, relative to the project, for <summaryPath>/<sessionID>/ralph_summary.md."),
  autoRestart: z.boolean().describe("false: report a missing promise with a toast instead of re-prompting."),
  strategy: z
    .enum(STRATEGIES)
    .describe(
      "recreate: fresh session, old one archived and deleted; fresh: fresh session, old one kept; continue: " +
        "re-prompt the same session.",
    ),
  activation: z
    .enum(["command", "always"])
    .describe("command: loops start with /ralph <task>; always: the first message of every new session starts one."),
} as const
