// What `ralph-loop run --json` prints: one JSON object per line (NDJSON), each an event of the run.
// A zod schema, so docs/run-events.schema.json is generated from the very thing the runner's output
// is checked against (`npm run schema`). Pure.
import { z } from "zod"
import { evidenceSchema } from "../../evidence/record.js"

/** Bumped when a field changes meaning or goes away; new fields and events may be added without it. */
export const RUN_EVENTS_VERSION = 1

const count = z.int().min(0)
const base = {
  at: z.string().describe("ISO 8601 time (UTC) the runner saw it"),
  loop: z.string().nullable().describe("the loop's id; null before it is known"),
}
const checkCounts = z.object({
  errors: count,
  warnings: count,
  securityIssues: count,
  testsFailed: count,
  testsRun: count,
})

export const runEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("host"),
    ...base,
    version: z.literal(RUN_EVENTS_VERSION),
    url: z.string(),
    started: z.boolean().describe("true: the runner started this server (and stops it); false: --attach"),
    pid: z.int().nullable(),
  }),
  z.object({
    type: z.literal("started"),
    ...base,
    task: z.string().describe("the task's first line"),
    limits: z.string().describe("the iteration and retry limits in force, in words"),
    session: z.string(),
    resumed: z.boolean().describe("true: --resume took an existing loop back"),
    iteration: z.int().min(1),
  }),
  z.object({
    type: z.literal("iteration"),
    ...base,
    iteration: z.int().min(1),
    decision: z
      .string()
      .nullable()
      .describe("what the plugin decided when the turn ended (restart, complete, stop, wait, pause, …)"),
    checks: checkCounts.nullable().describe("what the checks found; null when they did not run"),
    failing: z.array(z.string()),
    tokens: z.number().min(0).describe("tokens of this iteration alone"),
    cost: z.number().min(0).describe("cost of this iteration alone"),
    durationMs: z.number().min(0),
    totalTokens: z.number().min(0),
    totalCost: z.number().min(0),
  }),
  z.object({
    type: z.literal("story-done"),
    ...base,
    story: z.string(),
    title: z.string().nullable(),
    done: count,
    total: count,
  }),
  z.object({
    type: z.literal("waiting"),
    ...base,
    reason: z.string().describe("backoff, breaker, call-limit or usage-limit"),
    until: z.string().nullable(),
    detail: z.string().nullable(),
  }),
  z.object({ type: z.literal("breaker-open"), ...base, reason: z.string().nullable() }),
  z.object({
    type: z.literal("review"),
    ...base,
    verdict: z.enum(["approve", "reject", "none"]),
    reasons: z.array(z.string()),
  }),
  z.object({ type: z.literal("rollback"), ...base, detail: z.string().nullable() }),
  z.object({ type: z.literal("paused"), ...base, detail: z.string().nullable() }),
  z.object({ type: z.literal("resumed"), ...base, iteration: z.int().min(1) }),
  z.object({
    type: z.literal("permission"),
    ...base,
    session: z.string(),
    permission: z.string().describe("what was asked (bash, edit, webfetch, …)"),
    patterns: z.array(z.string()),
    reply: z
      .enum(["once", "reject"])
      .describe("once: approved (--auto-approve); reject: denied, the model sees the denial"),
  }),
  z.object({
    type: z.literal("question"),
    ...base,
    session: z.string(),
    reply: z.literal("reject").describe("a question tool call: nobody is there to answer, so it is rejected"),
  }),
  z.object({
    type: z.literal("text"),
    ...base,
    session: z.string(),
    text: z.string().describe("--verbose: a text of the model's, once complete"),
  }),
  z.object({ type: z.literal("interrupt"), ...base, signal: z.string(), action: z.enum(["pause", "cancel"]) }),
  z.object({ type: z.literal("error"), ...base, message: z.string() }),
  z.object({
    type: z.literal("ended"),
    ...base,
    outcome: z
      .string()
      .describe(
        "the loop's stopReason (completed, max-iterations, …), or paused, story-not-committed, not-verified " +
          "(--require-verified), interrupted, usage, runner-failure",
      ),
    detail: z.string().nullable(),
    exitCode: z.int(),
    iteration: z.int().min(0).describe("the loop's last iteration; 0 when no loop ran"),
    tokens: z.number().min(0),
    cost: z.number().min(0),
    report: z.string().nullable().describe("ralph_report.md of the loop, when written"),
    evidence: evidenceSchema
      .nullable()
      .describe(
        "what its completion rested on (issue 39): verified, the checks after the last change with their exit " +
          "codes and test counts, the files changed, the review, the guard's findings; null when it did not complete",
      ),
  }),
])
export type RunEvent = z.infer<typeof runEventSchema>

/** An event without its time and loop (the runner adds those). */
export type RunEventBody = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "at" | "loop"> : never) : never
