// The settings that bound a loop: its iterations, calls, tokens, cost and time, its circuit breaker and back-off.
import { z } from "zod"

/** Keys in the settings' order. */
export const limitSettingSchemas = {
  maxIterations: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(10_000, "must be at most 10000")
    .describe(
      "Model turns of one loop at most (a plan loop: of all its stories together). In a loop without a plan, a " +
        "maxRetries set later raises it; see Iterations and retries below.",
    ),
  maxCallsPerHour: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100_000, "must be at most 100000")
    .describe(
      "Prompts and summaries the plugin may send per window; at the limit the loop waits for the window to reset.",
    ),
  rateLimitWindowMinutes: z
    .number()
    .positive("must be more than 0")
    .max(1440, "must be at most 1440")
    .describe("Length of the maxCallsPerHour window, in minutes (60 unless you are testing)."),
  cooldownMinutes: z
    .number()
    .positive("must be more than 0")
    .max(1440, "must be at most 1440")
    .describe("How long the circuit breaker stays OPEN before it lets one probe turn through."),
  noProgressThreshold: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1000, "must be at most 1000")
    .describe("Iterations in a row without measured progress that open the circuit breaker."),
  sameErrorThreshold: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1000, "must be at most 1000")
    .describe("Iterations in a row ending in the same error that open the circuit breaker."),
  maxTokens: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .describe("Token budget of one loop (input + output + reasoning, from OpenCode's own accounting)."),
  maxCost: z
    .number()
    .min(0, "must be 0 or more")
    .describe("Cost budget of one loop in the provider's currency (usually USD), from OpenCode's own accounting."),
  maxWallMinutes: z
    .number()
    .positive("must be more than 0")
    .max(10_080, "must be at most 10080 (a week)")
    .describe("Wall-clock budget of one loop, in minutes."),
  backoffBaseSeconds: z
    .number()
    .positive("must be more than 0")
    .max(3600, "must be at most 3600")
    .describe(
      "First wait after a usage limit or a transient provider failure when the provider gave no reset time; " +
        "doubles each time.",
    ),
  backoffMaxMinutes: z
    .number()
    .positive("must be more than 0")
    .max(1440, "must be at most 1440")
    .describe("Longest single back-off after a transient provider failure (timeout, 5xx)."),
  usageLimitMaxWaitHours: z
    .number()
    .positive("must be more than 0")
    .max(168, "must be at most 168 (a week)")
    .describe(
      "Longest wait for a usage limit (quota, rate limit, overload) to reset; the loop then tries again. It waits " +
        "until the reset the provider names, or backs off from backoffBaseSeconds.",
    ),
} as const
