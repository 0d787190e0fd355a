// The handoff to a fresh session: the model's summary of the old one (or the end of its last
// reply), and the facts the plugin checked itself — files, failing checks, open todos, gotchas.
import { recurringFailures, unmetCriteria } from "../../loop/criteria.js"
import { gotchasFor, gotchaText } from "../../loop/gotchas.js"
import { FALLBACK_REPLY_CHARS, latestCheckRun, type HandoffFacts } from "../../loop/handoff.js"
import { maxIterations, type Loop } from "../../loop/loop.js"
import { openTodos } from "../../loop/todos.js"
import type { Turn } from "../../loop/turn.js"
import { progressExcerpt } from "../../store/progress-log.js"
import { readSummary, sessionUsage, type MessageWithParts } from "../../loop/read-turn.js"
import { all, io, type Job } from "../../effects/kernel.js"
import { log, reached } from "../../effects/jobs.js"
import { featureOn } from "../../config/features.js"
import type { JobContext } from "./context.js"
import { memorySection, returningFailureLines } from "../../memory/memory-job.js"

export interface Summary {
  summary: string
  source: "model" | "fallback"
}

/**
 * The summary OpenCode's compaction already wrote (after a context overflow), or the model's
 * summary of the session, or — if that fails — the end of its last reply.
 */
export function* summarize(ctx: JobContext, loop: Loop, turn: Turn): Job<Summary> {
  const sessionID = loop.sessionID
  const model = turn.model
  function* summarized(model: NonNullable<Turn["model"]>): Job<MessageWithParts[]> {
    ctx.manager.recordCall(loop, ctx.now())
    yield* reached("summarize.before")
    yield* io({ kind: "summarize", sessionID, model })
    return yield* io({ kind: "messages", sessionID })
  }
  try {
    // After a compaction (OpenCode's after an overflow, or ours before a crash) the summary may be there already.
    let messages = turn.compacted || !model ? yield* io({ kind: "messages", sessionID }) : yield* summarized(model)
    let summary = readSummary(messages)
    // A summary a crash cut off is no summary: ask again.
    if (!summary && turn.compacted && model) {
      messages = yield* summarized(model)
      summary = readSummary(messages)
    }
    ctx.manager.usageMeasured(loop, sessionID, sessionUsage(messages))
    if (summary) return { summary, source: "model" }
    yield* log("warn", "no summary was produced; using the last reply as the handoff", { session: sessionID })
  } catch (error) {
    yield* log("warn", "session.summarize failed; using the last reply as the handoff", {
      session: sessionID,
      error: String(error),
    })
  }
  const last = turn.texts.join("\n").trim()
  const summary = last
    ? `The previous session ended with this reply (no model summary was available):\n\n` +
      `${last.slice(-FALLBACK_REPLY_CHARS)}`
    : ""
  return { summary, source: "fallback" }
}

/** The facts of the handoff digest, from git, the session's todos and the loop's history. */
export function* handoffFacts(loop: Loop, nextIteration: number): Job<HandoffFacts> {
  const [files, todos] = yield* all({ kind: "changed-files", loop }, { kind: "todos", sessionID: loop.sessionID })
  const progress = featureOn(loop.settings, "progress-log") ? yield* io({ kind: "read-progress" }) : undefined
  const returning = yield* returningFailureLines(loop)
  const memory = yield* memorySection(loop, files)
  // No check ran in the last iteration: the run before it still stands (a criteria loop's initial run too).
  const last = latestCheckRun(loop)
  const failingChecks = last
    ? last.checks
        .filter((c) => c.status !== "passed")
        .map((c) => `${c.name} (${c.kind}): ${c.status} — ${c.output.trim().split("\n").slice(-3).join(" / ")}`)
    : []
  const tried = [
    ...loop.snapshots
      .filter((s) => s.checks.some((c) => c.status !== "passed"))
      .slice(-3)
      .map((s) => `iteration ${s.iteration}: ${unmetCriteria(s, loop.settings).join(", ")}`),
    ...(loop.breaker.lastError ? [`the last turn ended in: ${loop.breaker.lastError}`] : []),
  ]
  return {
    goal: loop.task,
    iteration: nextIteration,
    maxIterations: maxIterations(loop),
    files,
    failingChecks,
    checksRanAt: last?.iteration,
    openTodos: openTodos(todos),
    tried,
    recurring: recurringFailures(loop.snapshots),
    gotchas: [...returning, ...gotchaText(gotchasFor(loop.gotchas, files))],
    progress: progressExcerpt(progress, undefined, loop.id),
    ...(memory ? { memory } : {}),
  }
}

/** The progress log's patterns and newest entries, for a plan loop's prompt ("" for other loops). */
export function* progressLines(loop: Loop): Job<string> {
  if (!loop.plan || !featureOn(loop.settings, "progress-log")) return ""
  return progressExcerpt(yield* io({ kind: "read-progress" }), undefined, loop.id)
}

/** The loop's gotchas that concern the files it changed, as prompt lines. */
export function* gotchaLines(loop: Loop): Job<string[]> {
  if (loop.gotchas.length === 0) return []
  const files = yield* io({ kind: "changed-files", loop })
  const returning = yield* returningFailureLines(loop)
  return [...returning, ...gotchaText(gotchasFor(loop.gotchas, files))]
}
