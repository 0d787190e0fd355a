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

const BLOCK = /-{2,}\s*RALPH_STATUS\s*-{2,}([\s\S]*?)(?:-{2,}\s*END_RALPH_STATUS\s*-{2,}|$)/gi

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
  const blocks = [...text.matchAll(BLOCK)]
  const body = blocks.at(-1)?.[1]
  if (body === undefined) return undefined
  const fields = new Map<string, string>()
  for (const line of body.split("\n")) {
    // Plain string work, no backtracking regex: a long line of spaces must not stall OpenCode.
    if (line.length > 400) continue
    const colon = line.indexOf(":")
    if (colon < 0) continue
    const key = line.slice(0, colon).replace(/[\s>*_`-]+/g, " ").trim().toUpperCase().replace(/ /g, "_")
    const value = line.slice(colon + 1).replace(/^[\s*_`]+|[\s*_`]+$/g, "")
    if (/^[A-Z_]+$/.test(key)) fields.set(key, value)
  }
  const status: RalphStatus = {}
  const word = (key: string) => fields.get(key)?.toUpperCase().replace(/[\s-]+/g, "_")
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
