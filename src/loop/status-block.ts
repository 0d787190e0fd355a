// The RALPH_STATUS block of seed 002, read tolerantly: any case, extra spaces, markdown bold or
// bullets, missing fields, and the block anywhere in the text (the last one wins).
export interface RalphStatus {
  status?: "IN_PROGRESS" | "COMPLETE" | "BLOCKED"
  tasksCompleted?: number
  filesModified?: number
  testsStatus?: "PASSING" | "FAILING" | "NOT_RUN"
  workType?: string
  exitSignal?: boolean
  recommendation?: string
}

// The start marker's dashes are tried only where a run of dashes begins (`(?<!-)`): tried from every
// dash, a long run of them was read to its end once per dash. (END reads MAX_BLOCK_CHARS at most.)
const START = /(?<!-)-{2,}\s*RALPH_STATUS\s*-{2,}/gi
const END = /-{2,}\s*END_RALPH_STATUS\s*-{2,}/i
/** A block is a dozen short lines: no more than this is read after its start marker. */
const MAX_BLOCK_CHARS = 4096

/**
 * The body of the last block: from its start marker to its end marker (or the end of the text).
 * Found by markers, not one pattern over the whole text: a multi-megabyte reply is scanned once.
 */
function lastBlockBody(text: string): string | undefined {
  let start = -1
  for (const match of text.matchAll(START)) start = match.index + match[0].length
  if (start < 0) return undefined
  const rest = text.slice(start, start + MAX_BLOCK_CHARS)
  const end = rest.search(END)
  return end < 0 ? rest : rest.slice(0, end)
}

export const STATUS_BLOCK_INSTRUCTION = [
  "End every reply with this block, filled in truthfully:",
  "---RALPH_STATUS---",
  "STATUS: IN_PROGRESS | COMPLETE | BLOCKED",
  "TASKS_COMPLETED_THIS_LOOP: <number>",
  "FILES_MODIFIED: <number>",
  "TESTS_STATUS: PASSING | FAILING | NOT_RUN",
  "WORK_TYPE: IMPLEMENTATION | TESTING | DOCUMENTATION | REFACTORING",
  "EXIT_SIGNAL: false | true",
  "RECOMMENDATION: <the next action, in one line>",
  "---END_RALPH_STATUS---",
].join("\n")

export function parseStatusBlock(text: string): RalphStatus | undefined {
  const body = lastBlockBody(text)
  if (body === undefined) return undefined
  const fields = new Map<string, string>()
  for (const line of body.split("\n")) {
    // Plain string work, no backtracking regex: a long line of spaces must not stall OpenCode.
    if (line.length > 400) continue
    const colon = line.indexOf(":")
    if (colon < 0) continue
    const key = line
      .slice(0, colon)
      .replace(/[\s>*_`-]+/g, " ")
      .trim()
      .toUpperCase()
      .replace(/ /g, "_")
    const value = line.slice(colon + 1).replace(/^[\s*_`]+|[\s*_`]+$/g, "")
    if (/^[A-Z_]+$/.test(key)) fields.set(key, value)
  }
  const status: RalphStatus = {}
  const word = (key: string) =>
    fields
      .get(key)
      ?.toUpperCase()
      .replace(/[\s-]+/g, "_")
  const number = (key: string) => {
    const n = Number.parseInt(fields.get(key) ?? "", 10)
    return Number.isFinite(n) ? n : undefined
  }
  const state = word("STATUS")
  if (state === "IN_PROGRESS" || state === "COMPLETE" || state === "BLOCKED") status.status = state
  if (state === "COMPLETED" || state === "DONE") status.status = "COMPLETE"
  const tasks = number("TASKS_COMPLETED_THIS_LOOP")
  if (tasks !== undefined) status.tasksCompleted = tasks
  const files = number("FILES_MODIFIED")
  if (files !== undefined) status.filesModified = files
  const tests = word("TESTS_STATUS")
  if (tests === "PASSING" || tests === "FAILING" || tests === "NOT_RUN") status.testsStatus = tests
  const workType = word("WORK_TYPE")
  if (workType) status.workType = workType
  const exit = fields.get("EXIT_SIGNAL")?.toLowerCase()
  if (exit === "true" || exit === "yes") status.exitSignal = true
  if (exit === "false" || exit === "no") status.exitSignal = false
  const recommendation = fields.get("RECOMMENDATION")
  if (recommendation) status.recommendation = recommendation
  return status
}
