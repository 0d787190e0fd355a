// Writing the plugin's record back into the plan file, in the shape it was read in: only the
// fields the plugin owns (`passes`/`notes`, `status`/`iteration`) change, with jsonc-parser's edits,
// so every other byte — unknown fields, order, comments, formatting — stays as it was. A story the
// model marked done that the plugin did not is set back. Pure.
import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, type FormattingOptions, type JSONPath, type ParseError } from "jsonc-parser"
import type { PlanState, StoryDone } from "./plan.js"

export type WriteBack = { text: string; changed: string[] } | { problem: string }

/** The note a story of the common shape gets when the plugin marks it done (if it has no notes). */
export const doneNote = (done: StoryDone) =>
  `Verified by ralph-loop in iteration ${done.iteration}${done.checks.length ? ` (checks passed: ${done.checks.join(", ")})` : " (no checks configured)"}`

export function writeBack(source: string, plan: PlanState): WriteBack {
  const errors: ParseError[] = []
  const root = parseTree(source, errors, { allowTrailingComma: true })
  if (!root || errors.length > 0) return { problem: "is no longer valid JSON, so the plugin's record of the stories could not be written into it" }
  const list = findNodeAtLocation(root, [plan.shape])
  if (list?.type !== "array") return { problem: `no longer has its "${plan.shape}" list` }
  const edits: Array<{ path: JSONPath; value: unknown }> = []
  const changed: string[] = []
  ;(list.children ?? []).forEach((node, index) => {
    const story = node.type === "object" ? (getNodeValue(node) as Record<string, unknown>) : undefined
    const id = typeof story?.id === "string" || typeof story?.id === "number" ? String(story.id).trim() : undefined
    if (!story || !id || !plan.stories.some((s) => s.id === id)) return
    const done = plan.done.find((d) => d.id === id)
    const before = edits.length
    const set = (field: string, value: unknown) => edits.push({ path: [plan.shape, index, field], value })
    if (plan.shape === "userStories") {
      if (done && story.passes !== true) set("passes", true)
      if (!done && story.passes === true) set("passes", false)
      if (done && done.iteration > 0 && (story.notes === undefined || story.notes === "")) set("notes", doneNote(done))
    } else {
      if (done && story.status !== "completed") set("status", "completed")
      if (!done && story.status === "completed") set("status", "pending")
      if (done && done.iteration > 0 && story.iteration !== done.iteration) set("iteration", done.iteration)
      if (!done && story.status === "completed" && story.iteration !== undefined) set("iteration", undefined)
    }
    if (edits.length > before) changed.push(id)
  })
  const formattingOptions = formatting(source)
  let text = source
  for (const { path, value } of edits) text = applyEdits(text, modify(text, path, value, { formattingOptions }))
  return { text, changed }
}

/** The file's own indentation and line ends, for the fields the edits add. */
function formatting(source: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(source)?.[1] ?? "  "
  return { insertSpaces: !indent.startsWith("\t"), tabSize: indent.startsWith("\t") ? 1 : indent.length, eol: source.includes("\r\n") ? "\r\n" : "\n" }
}
