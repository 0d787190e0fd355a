// The field that says a story is done, as each shape has it: a flag (`passes`, `tested`,
// `complete`, …) or a status (`completed`, `done`, …; anything else is not done). When the plugin
// writes a story's state it uses the item's own field, spelled as the file spells its values; an
// item without one gets the field its siblings have (`passes` where none has any). Pure.
import type { Item } from "./story-fields.js"

export const FLAG_FIELDS = ["passes", "passed", "tested", "complete", "completed", "done"] as const
export const STATUS_FIELDS = ["status", "state"] as const

const DONE_STATUSES = new Set([
  "completed",
  "complete",
  "done",
  "passed",
  "passing",
  "finished",
  "closed",
  "resolved",
  "verified",
  "shipped",
])
/** Not-done values that say where the work is rather than that it waits: never written back as "not done". */
const UNDER_WAY = new Set([
  "in_progress",
  "inprogress",
  "started",
  "wip",
  "doing",
  "active",
  "review",
  "in_review",
  "blocked",
  "failed",
  "failing",
])

const normal = (status: string) =>
  status
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_")
export const isDoneStatus = (status: string) => DONE_STATUSES.has(normal(status))

export type DoneField = { key: string; kind: "flag" } | { key: string; kind: "status" }

/** The item's own done field, if it has one. */
export function ownDoneField(item: Item): DoneField | undefined {
  const flag = FLAG_FIELDS.find((key) => typeof item[key] === "boolean")
  if (flag) return { key: flag, kind: "flag" }
  const status = STATUS_FIELDS.find((key) => typeof item[key] === "string")
  return status ? { key: status, kind: "status" } : undefined
}

/** Whether the item says it is done (false when it has no done field). */
export function saysDone(item: Item): boolean {
  const field = ownDoneField(item)
  if (!field) return false
  return field.kind === "flag" ? item[field.key] === true : isDoneStatus(item[field.key] as string)
}

/** How the plugin writes "done" and "not done" into the items of one list. */
export interface DoneStyle {
  /** For an item without a done field of its own. */
  field: DoneField
  doneStatus: string
  notDoneStatus: string
  /**
   * The file's word for the story being worked on (`in_progress`, `in-progress`, `doing`), if it has one or is seed
   * 003's shape.
   */
  inProgressStatus: string | undefined
}

const IN_PROGRESS = new Set(["in_progress", "inprogress", "doing", "wip", "active"])

/**
 * `seed`: seed 003's shape, whose stories are `pending`, `in_progress` or `completed` even where none is in progress
 * yet.
 */
export function doneStyle(items: readonly Item[], seed = false): DoneStyle {
  const fields: DoneField[] = []
  const statuses: string[] = []
  for (const item of items) {
    const field = ownDoneField(item)
    if (field) fields.push(field)
    for (const key of STATUS_FIELDS) if (typeof item[key] === "string") statuses.push(item[key])
  }
  const done = statuses.filter(isDoneStatus)
  const waiting = statuses.filter((s) => !isDoneStatus(s) && !UNDER_WAY.has(normal(s)))
  const todo = statuses.some((s) => normal(s) === "todo" || normal(s) === "to_do")
  return {
    field: mostCommon(fields, (f) => f.key) ?? { key: "passes", kind: "flag" },
    doneStatus: mostCommon(done, (s) => s) ?? (todo ? "done" : "completed"),
    notDoneStatus: statuses.find((s) => normal(s) === "pending") ?? mostCommon(waiting, (s) => s) ?? "pending",
    inProgressStatus: statuses.find((s) => IN_PROGRESS.has(normal(s))) ?? (seed ? "in_progress" : undefined),
  }
}

/** The field to write for `item` and the value that says `done`. */
export function doneValue(item: Item, style: DoneStyle, done: boolean): { field: DoneField; value: boolean | string } {
  const field = ownDoneField(item) ?? style.field
  return { field, value: field.kind === "flag" ? done : done ? style.doneStatus : style.notDoneStatus }
}

function mostCommon<T>(values: readonly T[], key: (value: T) => string): T | undefined {
  const counts = new Map<string, { value: T; count: number }>()
  for (const value of values) {
    const entry = counts.get(key(value)) ?? { value, count: 0 }
    entry.count += 1
    counts.set(key(value), entry)
  }
  let best: { value: T; count: number } | undefined
  for (const entry of counts.values()) if (!best || entry.count > best.count) best = entry
  return best?.value
}
