// The plugin's settings: one zod schema per key (so one bad key never discards the others),
// their defaults, and their meaning. Seed 000's keys keep their names.
import { MERGE_STRATEGIES } from "../worktrees/merge-plan.js"
import { z } from "zod"
import { OPENCODE_DIR } from "../project/own-files.js"
import { FEATURES } from "./features.js"
import { closest } from "./suggest.js"
import { GUARD_DEFAULT, guardSettingSchema } from "./guard-setting.js"

export const STRATEGIES = ["recreate", "fresh", "continue"] as const
export type Strategy = (typeof STRATEGIES)[number]

export const CHECK_KINDS = ["typecheck", "lint", "test", "security"] as const
export type CheckKind = (typeof CHECK_KINDS)[number]

export const checkSchema = z.object({
  name: z.string().trim().min(1, "must not be empty").max(60),
  command: z.string().trim().min(1, "must not be empty"),
  kind: z.enum(CHECK_KINDS),
  timeoutSeconds: z.number().positive("must be more than 0").max(3600, "must be at most 3600").optional(),
})
export type CheckConfig = z.output<typeof checkSchema>

/** A feature name; a mistyped one is named with a "did you mean". */
const featureName = z.enum(FEATURES, {
  error: (issue) => {
    const near = typeof issue.input === "string" ? closest(issue.input, FEATURES) : undefined
    return `unknown feature ${JSON.stringify(issue.input)}${near ? `; did you mean "${near}"?` : ` (known: ${FEATURES.join(", ")})`}`
  },
})

export const NOTIFY_EVENTS = ["ended", "breaker", "waiting"] as const
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number]

export const notifySchema = z
  .strictObject({
    desktop: z
      .boolean()
      .default(true)
      .describe("A desktop notification (notify-send, osascript, a PowerShell toast) where the platform has one."),
    webhook: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .optional()
      .describe(
        "A URL that gets a JSON POST per notification (loop, task, event, reason, iterations, tokens, cost, " +
          "report, text — `text` for Slack).",
      ),
    on: z
      .array(z.enum(NOTIFY_EVENTS))
      .default([...NOTIFY_EVENTS])
      .describe(
        "Which events notify: ended (any reason), breaker (it opened), waiting (a wait of more than a minute).",
      ),
  })
  .describe("Notifications when a loop ends, its circuit breaker opens, or it waits more than a minute.")
export type NotifySettings = z.output<typeof notifySchema>

const literal = z.string().min(1, "must not be empty").max(200, "must be at most 200 characters")

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
      "Longest wait for a usage limit (quota, rate limit, overload) to reset; the loop then tries again. It " +
        "waits until the reset the provider names, or backs off from backoffBaseSeconds.",
    ),
  statusBlock: z.boolean().describe("Ask the model to end each turn with a ---RALPH_STATUS--- block (read as a hint)."),
  exitGate: z
    .enum(["promise", "dual", "either"])
    .describe(
      "promise: the promise ends the loop; dual: 2+ completion indicators in a row and EXIT_SIGNAL: true; " +
        "either: one of the two.",
    ),
  checks: z
    .array(checkSchema)
    .max(20, "at most 20 checks")
    .describe(
      "Commands the plugin runs in the project to verify the work (name, command, kind, timeoutSeconds). Empty: detected.",
    ),
  autoDetectChecks: z
    .boolean()
    .describe(
      "With no checks configured, detect them: tsconfig.json → tsc, a test script → npm test, ESLint, " +
        "ruff/pytest, ast-grep — each only if installed.",
    ),
  autoCommit: z
    .boolean()
    .describe(
      "After the plugin verified a plan story done, commit the loop's changed files on the current branch as " +
        '"story <id>: <title>" (with the repository\'s hooks; never on a detached HEAD or with a conflict). A ' +
        "file you edit yourself while the loop runs counts as the loop's (the plugin cannot tell who wrote it): " +
        "keep your own edits out of the project meanwhile, or leave this off.",
    ),
  worktree: z
    .boolean()
    .describe(
      "Every /ralph with a task runs in its own git worktree (.opencode/ralph-loop/worktrees/<NAME>, branch " +
        "ralph/<NAME>) and is merged back by mergeStrategy when it completes; as the flag --worktree. A plan loop " +
        "(--prd) still runs in the project's tree; --prd --parallel N runs its stories in worktrees.",
    ),
  mergeStrategy: z
    .enum(MERGE_STRATEGIES)
    .describe(
      "What a completed worktree loop's branch does: ff-or-branch (fast-forward your branch if it has not moved " +
        "and the work tree is clean, else keep the branch and say how to merge), merge (a merge commit; a conflict " +
        "keeps the branch and names the files), none (keep the branch).",
    ),
  maxParallelLoops: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(16, "must be at most 16")
    .describe(
      "Worktree loops of one project running at once (/ralph --worktree, /ralph --prd --parallel N); a loop " +
        "beyond it is refused.",
    ),
  enabled: z
    .boolean()
    .describe(
      "false: the plugin is off — no commands, no hooks — from OpenCode's next start, as RALPH_LOOP_DISABLE=1 " +
        "(any settings layer; the last that sets it wins).",
    ),
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
      "Check runs in a row that still find issues, without fewer of them, that stop the loop (passing runs never do).",
    ),
  resumeOnStart: z
    .enum(["auto", "ask"])
    .describe("After OpenCode restarts, active loops go on by themselves (auto) or wait for /ralph-resume (ask)."),
  settleMs: z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(60_000, "must be at most 60000")
    .describe("How long the plugin lets late events arrive after an idle before it acts on it."),
  requireTodosDone: z
    .boolean()
    .describe(
      "A completion claim needs every todo of the session done (or cancelled); open ones are named in the next prompt.",
    ),
  memoryMaxEntries: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(10_000, "must be at most 10000")
    .describe("Entries kept in the working memory of .opencode/ralph-loop/memory.md; the oldest are pruned."),
  memoryBudgetChars: z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(100_000, "must be at most 100000")
    .describe("Characters of project memory a loop's first prompt and each fresh-session handoff may carry."),
  prdPath: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .describe(
      "The plan file, relative to the project: /ralph-plan writes it, /ralph --prd works through it (one user " +
        "story per iteration).",
    ),
  completionMarkers: z
    .array(literal)
    .max(20, "at most 20 markers")
    .describe('Extra literal markers (e.g. "<jikime:done />") that count as the promise wherever the promise is read.'),
  disabledFeatures: z
    .array(featureName)
    .describe(`Features switched off: ${FEATURES.join(", ")}. A disabled feature does nothing at all.`),
  todoContinuationDelaySeconds: z
    .number()
    .min(0, "must be 0 or more")
    .max(300, "must be at most 300")
    .describe(
      "todo-continuation: the countdown, in seconds, before a session that stopped with open todos is continued.",
    ),
  todoContinuationMax: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .describe("todo-continuation: continuations in a row without a todo completed; then it stops with a toast."),
  keywords: z
    .array(literal.trim())
    .max(20, "at most 20 keywords")
    .describe(
      "keyword: a typed message starting with one of these (any case) starts a loop with the rest as the task.",
    ),
  autoContinue: z
    .boolean()
    .describe(
      "auto-continue: after a turn that changed files in a session without a loop, run the fast checks and " +
        "continue while they report errors.",
    ),
  autoContinueMax: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .describe("auto-continue: continuations per user message."),
  notify: notifySchema,
  review: z
    .union([
      z.boolean(),
      z
        .object({
          model: z
            .string()
            .regex(/^[^/\s]+\/\S+$/, 'must be "provider/model"')
            .optional()
            .describe(
              "The reviewer's model, as \"provider/model\" (default: OpenCode's small_model, else the loop " +
                "session's model).",
            ),
          agent: z
            .string()
            .trim()
            .min(1, "must not be empty")
            .optional()
            .describe("The reviewer's agent (default: ralph-review, a read-only agent the plugin defines)."),
          maxDiffChars: z
            .number()
            .int("must be a whole number")
            .min(1_000, "must be at least 1000")
            .max(1_000_000, "must be at most 1000000")
            .default(60_000)
            .describe("The diff sent to the reviewer is cut at this many characters (the cut is said)."),
          maxRejections: z
            .number()
            .int("must be a whole number")
            .min(1, "must be at least 1")
            .max(20, "must be at most 20")
            .default(3)
            .describe("Rejections in a row that stop the loop (reason review)."),
          keep: z
            .boolean()
            .default(false)
            .describe("Keep each review session instead of deleting it after its verdict."),
        })
        .strict(),
    ])
    .describe(
      "A second opinion before a loop completes: once a completion claim passes the checks, a fresh review " +
        "session judges the change (true, or an object of options; /ralph --review).",
    ),
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
