// The handoff to a fresh session: the model's summary plus a digest the plugin builds itself from
// facts (goal, iteration, files changed, failing checks, open todos, what failed, recurring
// errors). Facts the summary leaves out are added; the whole has a size budget, so the restart
// prompt is the same size at iteration 20 as at 2.
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"

export interface HandoffFacts {
  goal: string
  iteration: number
  maxIterations: number
  files: string[]
  /** The failing checks of the latest check run, which ran at iteration `checksRanAt` (0: before the first prompt). */
  failingChecks: string[]
  checksRanAt?: number | undefined
  openTodos: string[]
  tried: string[]
  recurring: string[]
  /** Gotchas from earlier failures on the files the loop works on. */
  gotchas: string[]
  /** The progress log's patterns and newest entries (already size-budgeted). */
  progress?: string | undefined
  /** What the project memory holds for this loop (already a prompt section, budgeted). */
  memory?: string
}

export const HANDOFF_BUDGET = 6_000
/** How much of the last reply stands in for a summary the model could not give (and is kept on disk for it). */
export const FALLBACK_REPLY_CHARS = 4_000
const LIST_LIMIT = 12
const ITEM_LIMIT = 200

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

function list(title: string, items: string[]): string[] {
  if (items.length === 0) return []
  const shown = items.slice(0, LIST_LIMIT).map((item) => `  - ${clip(item.replace(/\s+/g, " ").trim(), ITEM_LIMIT)}`)
  return [
    `- ${title}:`,
    ...shown,
    ...(items.length > LIST_LIMIT ? [`  - … and ${items.length - LIST_LIMIT} more`] : []),
  ]
}

/** The facts the summary does not already mention (case-insensitive). */
const omitted = (summary: string, items: string[]) =>
  items.filter((item) => !summary.toLowerCase().includes(item.toLowerCase().trim().slice(0, 80)))

/**
 * The latest check run of a loop: the last of its iterations', else a criteria loop's run before its
 * first prompt. An iteration whose checks did not run leaves the failures of the run before it standing.
 */
export const latestCheckRun = (loop: {
  snapshots: readonly DiagnosticSnapshot[]
  initialChecks?: DiagnosticSnapshot | undefined
}): DiagnosticSnapshot | undefined => loop.snapshots.at(-1) ?? loop.initialChecks

/** "iteration 3", or for a criteria loop's first run "before the first prompt". */
export const ranAt = (iteration: number): string =>
  iteration === 0 ? "before the first prompt" : `iteration ${iteration}`

export function digest(facts: HandoffFacts, summary: string): string {
  return [
    "## Facts from ralph-loop (checked by the plugin, not by the model)",
    `- Goal: ${clip(facts.goal.split("\n")[0] ?? "", ITEM_LIMIT)}`,
    `- Iteration ${facts.iteration} of ${facts.maxIterations} starts now`,
    ...list("Files changed since the loop began", facts.files),
    ...list(
      `Failing checks${facts.checksRanAt === undefined ? "" : ` (latest run, ${ranAt(facts.checksRanAt)})`}`,
      omitted(summary, facts.failingChecks).length ? facts.failingChecks : [],
    ),
    ...list("Open todos", omitted(summary, facts.openTodos)),
    ...list("Tried and failed", facts.tried),
    ...list("Recurring errors", facts.recurring),
    ...list("Gotchas from earlier failures on these files", facts.gotchas),
    ...(facts.progress ? ["", "## Progress log (.opencode/ralph-loop/progress.md)", facts.progress] : []),
    ...(facts.memory ? ["", facts.memory] : []),
  ].join("\n")
}

/** Summary + digest within the budget: the digest is kept whole, the summary is cut to fit. */
export function buildHandoff(summary: string, facts: HandoffFacts, budget = HANDOFF_BUDGET): string {
  const facts_ = digest(facts, summary)
  const room = Math.max(500, budget - facts_.length - 2)
  const trimmed = summary.trim()
  const body =
    trimmed.length > room ? `${trimmed.slice(0, room - 40)}\n… (summary cut to fit the handoff budget)` : trimmed
  return `${body || "(no summary could be produced — inspect the project to see what was done)"}\n\n${facts_}`
}

/** Asked of the compaction model when the loop summarizes a session for the next one. */
export const RALPH_SUMMARY_INSTRUCTIONS = [
  "This summary is the handoff of a Ralph loop: a fresh session will continue the task from it alone.",
  "Include, in this order: the goal; what is done (files and what changed); what was tried and did not work, and why;",
  "the open todos; failing tests or checks with their exact error messages; and the next concrete steps.",
  "Be specific (paths, names, commands); leave out pleasantries and anything the next session can re-read from " +
    "the files.",
].join(" ")
