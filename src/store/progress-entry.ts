// One entry of the progress log, for a decided iteration: time, loop, story, outcome, files
// changed, failing checks, and the `<learning>…</learning>` lines the model wrote. Pure.
import type { Decision } from "../loop/decide.js"
import type { StoryDone } from "../plan/plan.js"
import { ranAt } from "../loop/handoff.js"

export interface ProgressEntry {
  at: number
  loopID: string
  task: string
  iteration: number
  /** The story the iteration worked on. */
  story?: { id: string; title: string } | undefined
  /** Set when the plugin marked that story done on this turn. */
  storyDone?: StoryDone | undefined
  decision: Decision
  files: string[]
  /** The checks that failed in the latest run, which ran at iteration `checksRanAt` (undefined: none has run). */
  failingChecks: string[]
  checksRanAt?: number | undefined
  learnings: string[]
}

const MAX_LEARNINGS = 5
const LEARNING_CHARS = 300
const FILES_SHOWN = 12

/** The model's `<learning>…</learning>` lines in a turn's text (at most 5, each one line). */
export function learningsIn(texts: readonly string[]): string[] {
  const found: string[] = []
  for (const text of texts)
    for (const body of taggedTexts(text, "<learning>", "</learning>")) {
      const line = body.replace(/\s+/g, " ").trim()
      if (line && !found.includes(line))
        found.push(line.length > LEARNING_CHARS ? `${line.slice(0, LEARNING_CHARS - 1)}…` : line)
      // The first five are kept: no need to read on (or to compare thousands of tags with each other).
      if (found.length === MAX_LEARNINGS) return found
    }
  return found
}

/**
 * What stands between each `open` and the first `close` after it, in order. Found by searching for
 * the tags, not by `open([\s\S]*?)close`: that read the rest of the text again from every unclosed tag.
 */
function* taggedTexts(text: string, open: string, close: string): Generator<string> {
  for (let at = text.indexOf(open); at >= 0; ) {
    const end = text.indexOf(close, at + open.length)
    if (end < 0) return
    yield text.slice(at + open.length, end)
    at = text.indexOf(open, end + close.length)
  }
}

export function outcomeOf(entry: Pick<ProgressEntry, "decision" | "storyDone">): string {
  const { decision, storyDone } = entry
  const story = storyDone
    ? `story ${storyDone.id} done — ` +
      `${storyDone.checks.length ? `checks passed: ${storyDone.checks.join(", ")}` : "no checks configured"}`
    : undefined
  switch (decision.type) {
    case "complete":
      return story ? `${story}; every story of the plan is done` : `completed — ${decision.detail}`
    case "restart":
      if (story) return story
      if (decision.feedback) return `not done yet: ${decision.feedback.split("\n")[0]}`
      return decision.note ? `not done yet: ${decision.note}` : "not done yet (no promise)"
    case "stop":
      return `${story ? `${story}; then ` : ""}stopped (${decision.reason}): ${decision.detail}`
    case "pause":
      return `${story ? `${story}; then ` : ""}paused: ${decision.reason}`
    case "wait":
      return `${story ? `${story}; then ` : ""}waiting (${decision.wait.reason}): ${decision.detail}`
    case "report-missing-promise":
      return "no promise (autoRestart is off: nothing sent)"
    case "ignore":
    case "wait-for-user":
      return decision.reason
  }
}

/** The failing checks, marked with the iteration they ran at when that was not this one. */
function checksLine({ failingChecks, checksRanAt, iteration }: ProgressEntry): string {
  if (checksRanAt === undefined) return "- Failing checks: no check has run yet"
  const list = failingChecks.length ? failingChecks.join("; ") : "none"
  return checksRanAt === iteration
    ? `- Failing checks: ${list}`
    : `- Failing checks (latest run, ${ranAt(checksRanAt)}): ${list}`
}

const stamp = (at: number) => `${new Date(at).toISOString().slice(0, 19).replace("T", " ")}Z`

export function renderEntry(entry: ProgressEntry): string {
  const files = entry.files.length
    ? `${entry.files.slice(0, FILES_SHOWN).join(", ")}` +
      `${entry.files.length > FILES_SHOWN ? `, … and ${entry.files.length - FILES_SHOWN} more` : ""}`
    : "(none)"
  return [
    `## ${stamp(entry.at)} · iteration ${entry.iteration}${entry.story ? ` · story ${entry.story.id}` : ""}`,
    `- Loop: ${entry.loopID} — ${(entry.story ? entry.story.title : (entry.task.split("\n")[0] ?? "")).slice(0, 120)}`,
    `- Outcome: ${outcomeOf(entry)}`,
    `- Files changed since the loop began: ${files}`,
    checksLine(entry),
    ...(entry.learnings.length
      ? ["- Learnings for future iterations:", ...entry.learnings.map((l) => `  - ${l}`)]
      : []),
  ].join("\n")
}
