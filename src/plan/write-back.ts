// Writing the plugin's record back into the plan file, in the file's own shape and style: for each
// story only the field that says "done" changes (the item's own, or the one its siblings have), plus
// a notes field where the shape has one (`notes`) and seed 003's `iteration`. The edits touch
// nothing else (json-edit.ts), so every other byte — unknown fields, key order, indentation, comments, escapes,
// the final newline — stays. A story the model marked done that the plugin did not is set back. Pure.
import { applyEdits } from "jsonc-parser"
import { propertyEdits, type ObjectChange } from "../files/json-edit.js"
import { doneStyle, doneValue, ownDoneField, saysDone, type DoneStyle } from "./done-field.js"
import { locatePlan, type PlanLayout } from "./plan-layout.js"
import { entryId, readJson } from "./plan-reader.js"
import { currentStory, type PlanState, type StoryDone } from "./plan.js"
import type { Item } from "./story-fields.js"

export type WriteBack = { text: string; changed: string[] } | { problem: string }

/** The note a story gets when the plugin marks it done (where the shape has notes and it has none). */
export const doneNote = (done: StoryDone) =>
  `Verified by ralph-loop in iteration ${done.iteration}` +
  `${done.checks.length ? ` (checks passed: ${done.checks.join(", ")})` : " (no checks configured)"}`

/**
 * `markCurrent: false` (plan merge, which works no story): no story gets the in-progress word, and
 * the plan's own status says only whether every story is done.
 */
export function writeBack(
  source: string,
  plan: PlanState,
  { markCurrent = true }: { markCurrent?: boolean } = {},
): WriteBack {
  const json = readJson(source)
  if (!json.ok)
    return { problem: "is no longer valid JSON, so the plugin's record of the stories could not be written into it" }
  const located = locatePlan(json.data)
  if (!located.ok) return { problem: `no longer has its list of stories (${located.problem})` }
  const { layout } = located
  const items = layout.entries
    .map((e) => e.value)
    .filter((v): v is Item => typeof v === "object" && v !== null && !Array.isArray(v))
  const style = doneStyle(items, layout.listKey === "stories")
  const next = currentStory(plan)?.id
  const current = markCurrent ? next : undefined
  const extras = { notes: hasNotes(layout, items), iteration: hasIterations(layout, items) }
  const known = new Set(plan.stories.map((s) => s.id))
  const ids: string[] = []
  const changes: ObjectChange[] = []
  for (const entry of layout.entries) {
    const item = entry.value
    if (typeof item !== "object" || item === null || Array.isArray(item)) continue
    const id = entryId(entry)
    if (!known.has(id)) continue
    const set = [
      ...storyEdits(
        item as Item,
        plan.done.find((d) => d.id === id),
        style,
        extras,
      ),
      ...inProgressMark(item as Item, id === current, style),
    ]
    if (set.length > 0) changes.push({ at: entry.at, set })
    ids.push(...(set.length > 0 ? [id] : []))
  }
  const planStatus = planStatusEdit(layout, next === undefined, style)
  if (planStatus) changes.push(planStatus)
  return { text: changes.length > 0 ? applyEdits(source, propertyEdits(source, changes)) : source, changed: ids }
}

/** The story being worked on gets the file's in-progress word, where its state is a status and the file has one. */
function inProgressMark(item: Item, current: boolean, style: DoneStyle): Array<{ key: string; value: unknown }> {
  const field = ownDoneField(item) ?? style.field
  if (
    !current ||
    field.kind !== "status" ||
    !style.inProgressStatus ||
    saysDone(item) ||
    item[field.key] === style.inProgressStatus
  )
    return []
  return [{ key: field.key, value: style.inProgressStatus }]
}

/**
 * Seed 003's plan `status`: in progress while stories are left, completed when none is (only where the file has one).
 */
function planStatusEdit(layout: PlanLayout, allDone: boolean, style: DoneStyle): ObjectChange | undefined {
  const status = layout.holder?.status
  if (layout.listKey !== "stories" || typeof status !== "string") return undefined
  const value = allDone ? style.doneStatus : (style.inProgressStatus ?? "in_progress")
  return status === value ? undefined : { at: layout.holderAt, set: [{ key: "status", value }] }
}

/** What changes in one item: its done field to the plugin's record, and the note or iteration that goes with it. */
function storyEdits(
  item: Item,
  done: StoryDone | undefined,
  style: DoneStyle,
  extras: { notes: boolean; iteration: boolean },
): Array<{ key: string; value: unknown }> {
  const edits: Array<{ key: string; value: unknown }> = []
  const fileDone = saysDone(item)
  const target = doneValue(item, style, done !== undefined)
  if (done && !fileDone) edits.push({ key: target.field.key, value: target.value })
  if (!done && fileDone) edits.push({ key: target.field.key, value: target.value })
  const marked = done !== undefined && done.iteration > 0
  if (marked && extras.notes && (item.notes === undefined || item.notes === ""))
    edits.push({ key: "notes", value: doneNote(done) })
  if (extras.iteration && target.field.kind === "status") {
    if (marked && item.iteration !== done.iteration) edits.push({ key: "iteration", value: done.iteration })
    if (!done && fileDone && item.iteration !== undefined) edits.push({ key: "iteration", value: undefined })
  }
  return edits
}

/** The common Ralph shape has `notes`; other shapes only where their items already do. */
const hasNotes = (layout: PlanLayout, items: readonly Item[]) =>
  layout.listKey === "userStories" || layout.listKey === "user_stories" || items.some((item) => "notes" in item)

/** Seed 003's shape records the iteration a story was done in; others only where their items already do. */
const hasIterations = (layout: PlanLayout, items: readonly Item[]) =>
  layout.listKey === "stories" || items.some((item) => "iteration" in item)
