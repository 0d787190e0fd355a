// The settings of the plugin's other features: recovery, settling, todos, memory, plans, markers,
// switched-off features, todo-continuation, keywords and auto-continue.
import { z } from "zod"
import { FEATURES } from "./features.js"
import { closest } from "./suggest.js"

/** A feature name; a mistyped one is named with a "did you mean". */
const featureName = z.enum(FEATURES, {
  error: (issue) => {
    const near = typeof issue.input === "string" ? closest(issue.input, FEATURES) : undefined
    const hint = near ? `; did you mean "${near}"?` : ` (known: ${FEATURES.join(", ")})`
    return `unknown feature ${JSON.stringify(issue.input)}${hint}`
  },
})

const literal = z.string().min(1, "must not be empty").max(200, "must be at most 200 characters")

/** Keys in the settings' order. */
export const featureSettingSchemas = {
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
      "A completion claim needs every todo of the session done (or cancelled); open ones are named in the next " +
        "prompt.",
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
} as const
