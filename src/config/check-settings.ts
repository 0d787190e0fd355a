// The settings of checks: the commands that verify the work, and what a completion claim needs of them.
import { z } from "zod"

export const CHECK_KINDS = ["typecheck", "lint", "test", "security"] as const
export type CheckKind = (typeof CHECK_KINDS)[number]

export const checkSchema = z.object({
  name: z.string().trim().min(1, "must not be empty").max(60),
  command: z.string().trim().min(1, "must not be empty"),
  kind: z.enum(CHECK_KINDS),
  timeoutSeconds: z.number().positive("must be more than 0").max(3600, "must be at most 3600").optional(),
})
export type CheckConfig = z.output<typeof checkSchema>

/** How the model says it is done, and which checks judge the claim (keys in the settings' order). */
export const claimSettingSchemas = {
  statusBlock: z.boolean().describe("Ask the model to end each turn with a ---RALPH_STATUS--- block (read as a hint)."),
  exitGate: z
    .enum(["promise", "dual", "either"])
    .describe(
      "promise: the promise ends the loop; dual: 2+ completion indicators in a row and EXIT_SIGNAL: true; either: " +
        "one of the two.",
    ),
  checks: z
    .array(checkSchema)
    .max(20, "at most 20 checks")
    .describe(
      "Commands the plugin runs in the project to verify the work (name, command, kind, timeoutSeconds). Empty: " +
        "detected.",
    ),
  autoDetectChecks: z
    .boolean()
    .describe(
      "With no checks configured, detect them: tsconfig.json → tsc, a test script → npm test, ESLint, ruff/pytest, " +
        "ast-grep — each only if installed.",
    ),
} as const

/** When the checks run and what they must show (keys in the settings' order). */
export const checkRunSettingSchemas = {
  checkAfter: z
    .enum(["claim", "iteration"])
    .describe("claim: run the checks when the model claims completion; iteration: after every iteration too."),
  completeOnCriteria: z
    .boolean()
    .describe(
      "A loop started with its criteria as flags (--zero-errors, --zero-warnings, --zero-security, --tests-pass, " +
        "--check) completes when they all hold after an iteration that changed the work tree, without waiting for " +
        "the promise (seed 004). false: such loops end on the promise only.",
    ),
  zeroErrors: z.boolean().describe("A completion claim needs zero errors from the checks."),
  zeroWarnings: z.boolean().describe("A completion claim needs zero warnings from the checks."),
  zeroSecurity: z.boolean().describe("A completion claim needs zero security issues from the checks."),
  testsPass: z.boolean().describe("A completion claim needs every test check to pass."),
  stagnationLimit: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1000, "must be at most 1000")
    .describe(
      "Check runs in a row that still find issues, without fewer of them, that stop the loop (passing runs never " +
        "do).",
    ),
} as const
