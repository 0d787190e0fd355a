// What the reviewer is sent: the task (and the plan's story), the loop's diff (cut to a size, the cut
// said), the check results and the model's claim; and what the loop's next prompt carries of a rejection.
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"
import type { Turn } from "../loop/turn.js"
import type { Story } from "../plan/plan.js"

export interface ReviewMaterial {
  task: string
  story?: Story | undefined
  /** `unknown`: git could not read it (why), which the reviewer is told. */
  diff: string | { unknown: string }
  maxDiffChars: number
  snapshot?: DiagnosticSnapshot | undefined
  /** The model's completion claim: its ralph_done call, else its last text. */
  claim: Turn
  /** Expectations the loop changed in tests, as the guard lists them (issue 39): not refused, judged here. */
  expectations?: readonly string[] | undefined
}

/** The title of a review session (the TUI's session list shows it). */
export const reviewTitle = (task: string): string => {
  const line = task.split("\n")[0]?.trim() ?? ""
  return `Ralph review · ${line.length > 60 ? `${line.slice(0, 59)}…` : line}`
}

/** The diff, cut at `max` characters (at a line end) with the cut said. */
export function capDiff(diff: string, max: number): string {
  if (diff.length <= max) return diff
  const cut = diff.lastIndexOf("\n", max)
  const kept = diff.slice(0, cut > 0 ? cut : max)
  return (
    `${kept}\n[… the diff is cut here: ${kept.length.toLocaleString("en")} of ` +
    `${diff.length.toLocaleString("en")} characters shown (review.maxDiffChars)]`
  )
}

const claimText = (turn: Turn): string[] =>
  turn.doneCall
    ? [
        `Summary: ${turn.doneCall.summary}`,
        ...(turn.doneCall.evidence.length ? ["Evidence:", ...turn.doneCall.evidence.map((e) => `- ${e}`)] : []),
      ]
    : [(turn.texts.at(-1) ?? "").trim().slice(-4_000)]

const checksText = (snapshot: DiagnosticSnapshot | undefined): string[] =>
  snapshot
    ? snapshot.checks.map((c) => `- ${c.name} (${c.kind}): ${c.status} — \`${c.command}\``)
    : ["(no checks are configured)"]

const VERDICT_FORMAT = [
  "Answer with exactly one verdict:",
  "- `<verdict>approve</verdict>` when the change does what the task asks;",
  "- `<verdict>reject</verdict>` followed by the reasons as a list (`- reason`), each saying what is wrong and " +
    "what would fix it.",
].join("\n")

const diffText = (diff: ReviewMaterial["diff"], max: number): string =>
  typeof diff === "string"
    ? capDiff(diff, max) || "(no change to tracked files)"
    : `(the diff could not be read: ${diff.unknown}. Look at the changed files yourself: git status, git diff.)`

export function reviewPrompt(material: ReviewMaterial): string {
  const { story } = material
  return [
    "You are reviewing the work of another coding agent before its task is accepted as done. The project's " +
      "checks passed; they cannot tell whether the agent solved a different problem, deleted or weakened the " +
      "tests, or stubbed what the task was about. Judge that. Do not change any file.",
    "",
    "## Task",
    material.task,
    ...(story
      ? [
          "",
          `## Story ${story.id}: ${story.title}`,
          ...(story.description ? [story.description] : []),
          ...story.acceptanceCriteria.map((c) => `- ${c}`),
        ]
      : []),
    "",
    "## The agent's claim",
    ...claimText(material.claim),
    "",
    "## Checks (all passed)",
    ...checksText(material.snapshot),
    "",
    ...(material.expectations?.length
      ? [
          "## Expectations the agent changed in tests",
          "Judge whether each is right, or made a failing test pass by changing what it expects:",
          ...material.expectations.map((e) => `- ${e}`),
          "",
        ]
      : []),
    "## The change (diff since the loop began)",
    "```diff",
    diffText(material.diff, material.maxDiffChars),
    "```",
    "",
    VERDICT_FORMAT,
  ].join("\n")
}

/** Asked once when the reply had no verdict. */
export const VERDICT_AGAIN = `Your reply had no verdict in the required format. ${VERDICT_FORMAT}`

/** The most of the reviewer's reasons the next prompt carries. */
export const MAX_FEEDBACK_CHARS = 4_000

/** The reviewer's reasons, verbatim (bounded), for the loop's next prompt. */
export function rejectionFeedback(reasons: readonly string[], rejections: number, maxRejections: number): string {
  const list = reasons.map((r) => `- ${r}`).join("\n")
  const bounded = list.length > MAX_FEEDBACK_CHARS ? `${list.slice(0, MAX_FEEDBACK_CHARS)}\n[… cut]` : list
  return [
    `A reviewer rejected the completion claim (rejection ${rejections} of ${maxRejections} in a row before the ` +
      `loop stops). The checks passed, but the reviewer found:`,
    bounded,
    "",
    "Fix these, then claim again.",
  ].join("\n")
}
