// The one plan reader: any of the shapes people write (see plan-layout.ts for where the stories
// are, story-fields.ts for what each field may be called, done-field.ts for what says "done") read
// as the plan's stories, then the rules a story list must keep (unique ids, dependencies that exist
// and do not go round). A file it cannot use gets problems that say what was expected and what was
// found. Unknown fields are not read and stay as they are (the write-back edits only its own). Pure.
import { parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser"
import { MAX_JSON_DEPTH, tooDeepAt } from "../files/json-depth.js"
import { saysDone } from "./done-field.js"
import { foundLabel, kindOf, locatePlan, projectName, type PlanEntry } from "./plan-layout.js"
import type { Story } from "./plan.js"
import {
  readChecks,
  readCriteria,
  readDependsOn,
  readId,
  readPriority,
  readText,
  STORY_FIELDS,
  type Item,
  type Read,
} from "./story-fields.js"

export interface ParsedPlan {
  /** Where the stories were found (`userStories`, `tasks`, `prd.tasks`, `phases[].tasks`, `[]`). */
  shape: string
  project?: string | undefined
  /** In file order. */
  stories: Story[]
  /** Ids the file marks done (`passes: true`, `status: "done"`, `complete: true`, …). */
  doneInFile: string[]
}

export type PlanRead = { ok: true; plan: ParsedPlan } | { ok: false; problems: string[] }

/** Reads a plan file's text. */
export function parsePlan(source: string): PlanRead {
  const json = readJson(source)
  if (!json.ok) return { ok: false, problems: [`not valid JSON: ${json.error}`] }
  const located = locatePlan(json.data)
  if (!located.ok) return { ok: false, problems: [located.problem] }
  const { layout } = located
  const found = `found ${foundLabel(layout.shape)}: ${count(layout.entries.length)}`
  if (layout.entries.length === 0) return { ok: false, problems: [`${found} — a plan needs at least one story`] }
  const read = layout.entries.map(readEntry)
  const stories = read.flatMap((r) => ("story" in r ? [r.story] : []))
  const problems = read.flatMap((r) => ("problem" in r ? [r.problem] : []))
  if (problems.length === 0) problems.push(...duplicateIDs(stories, layout.entries), ...badDependencies(stories))
  if (problems.length > 0) return { ok: false, problems: problems.map((p, i) => (i === 0 ? `${found}, but ${p}` : p)) }
  return {
    ok: true,
    plan: {
      shape: layout.shape,
      project: projectName(layout),
      stories,
      doneInFile: stories.filter((_, i) => saysDone(layout.entries[i]?.value as Item)).map((s) => s.id),
    },
  }
}

/**
 * The file's data: JSON.parse where it can (the common case, ~6× faster on a 1 MB plan), jsonc-parser for comments and
 * trailing commas.
 */
export function readJson(source: string): { ok: true; data: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, data: JSON.parse(source) }
  } catch {
    // jsonc-parser parses by recursion: a text nested past the limit would throw RangeError out of it.
    const deep = tooDeepAt(source)
    if (deep !== undefined)
      return {
        ok: false,
        error: `${where(source, deep)}: nested too deeply (more than ${MAX_JSON_DEPTH} levels of brackets)`,
      }
    const errors: ParseError[] = []
    const tree = parseTree(source, errors, { allowTrailingComma: true })
    return errors.length > 0
      ? { ok: false, error: syntaxError(source, errors[0] as ParseError) }
      : { ok: true, data: tree ? nodeValue(tree) : undefined }
  }
}

/**
 * A parsed node's value, every key an own property as JSON.parse makes it: jsonc-parser's own
 * `parse` assigns keys, so a `"__proto__"` key in the file replaced the object's prototype.
 */
function nodeValue(node: Node): unknown {
  if (node.type === "array") return (node.children ?? []).map(nodeValue)
  if (node.type !== "object") return node.value
  return Object.fromEntries(
    (node.children ?? []).map((property) => [
      property.children?.[0]?.value as string,
      property.children?.[1] ? nodeValue(property.children[1]) : undefined,
    ]),
  )
}

const count = (n: number) => `${n} ${n === 1 ? "item" : "items"}`

/** An item's id: its own, or its position when it has none (also what the write-back matches). */
export function entryId(entry: PlanEntry): string {
  const id = typeof entry.value === "object" && entry.value !== null ? readId(entry.value as Item) : undefined
  return (id && "value" in id ? id.value : undefined) ?? entry.position
}

function readEntry(entry: PlanEntry): { story: Story } | { problem: string } {
  const item = entry.value
  if (typeof item !== "object" || item === null || Array.isArray(item))
    return { problem: `item ${entry.position} is ${kindOf(item)}, not an object` }
  const fields = item as Item
  const own = readId(fields)
  const label =
    `item ${entry.position}` +
    `${"value" in own && own.value !== undefined && own.value !== entry.position ? ` (${own.value})` : ""}`
  const title = readText(fields, STORY_FIELDS.title)
  const description = readText(fields, STORY_FIELDS.description)
  const criteria = readCriteria(fields)
  const priority = readPriority(fields)
  const dependsOn = readDependsOn(fields)
  const checks = readChecks(fields)
  const problem = [own, title, description, criteria, priority, dependsOn, checks].find(
    (r): r is { problem: string } => "problem" in r,
  )
  if (problem) return { problem: `${label} ${problem.problem}` }
  const value = <T>(r: Read<T>) => (r as { value: T }).value
  const text = value(description)
  const name = value(title) ?? (text ? headline(text) : undefined)
  if (name === undefined) return { problem: `${label} has neither a title nor a description` }
  const rank = value(priority)
  return {
    story: {
      id: value(own) ?? entry.position,
      title: name,
      ...(text !== undefined ? { description: text } : {}),
      acceptanceCriteria: value(criteria),
      ...(rank !== undefined ? { priority: rank } : {}),
      dependsOn: value(dependsOn),
      checks: value(checks),
    },
  }
}

/** A title made of a description: its first line, at most 80 characters. */
function headline(description: string): string {
  const line = description.trim().split("\n")[0]?.trim() ?? ""
  return line.length > 80 ? `${line.slice(0, 79).trimEnd()}…` : line
}

function duplicateIDs(stories: readonly Story[], entries: readonly PlanEntry[]): string[] {
  const first = new Map<string, number>()
  const problems: string[] = []
  stories.forEach((s, i) => {
    const seen = first.get(s.id)
    if (seen === undefined) first.set(s.id, i)
    else problems.push(`items ${entries[seen]?.position} and ${entries[i]?.position} have the same id "${s.id}"`)
  })
  return problems
}

function badDependencies(stories: readonly Story[]): string[] {
  const known = new Set(stories.map((s) => s.id))
  const problems: string[] = []
  for (const s of stories)
    for (const dep of s.dependsOn)
      if (!known.has(dep)) problems.push(`story ${s.id} depends on "${dep}", which no item has as its id`)
  if (problems.length > 0 || stories.every((s) => s.dependsOn.length === 0)) return problems
  const cycle = findCycle(stories)
  return cycle ? [`the stories ${cycle.join(" → ")} depend on each other, so none of them can start`] : []
}

/**
 * A dependency cycle, as the ids along it (the first repeated at the end), if there is one. A walk
 * with a stack of its own: by recursion, a chain of some thousands of stories overflowed the stack.
 */
function findCycle(stories: readonly Story[]): string[] | undefined {
  const deps = new Map(stories.map((s) => [s.id, s.dependsOn]))
  const state = new Map<string, "open" | "closed">()
  /** The open ids along the walk, each with how many of its dependencies were followed. */
  const trail: Array<{ id: string; next: number }> = []
  for (const s of stories) {
    if (state.has(s.id)) continue
    state.set(s.id, "open")
    trail.push({ id: s.id, next: 0 })
    while (trail.length > 0) {
      const top = trail[trail.length - 1] as { id: string; next: number }
      const dep = deps.get(top.id)?.[top.next]
      if (dep === undefined) {
        trail.pop()
        state.set(top.id, "closed")
        continue
      }
      top.next += 1
      if (state.get(dep) === "open") return [...trail.slice(trail.findIndex((t) => t.id === dep)).map((t) => t.id), dep]
      if (state.has(dep)) continue
      state.set(dep, "open")
      trail.push({ id: dep, next: 0 })
    }
  }
  return undefined
}

function syntaxError(source: string, error: ParseError): string {
  return `${where(source, error.offset)}: ${printParseErrorCode(error.error)}`
}

function where(source: string, offset: number): string {
  const before = source.slice(0, offset)
  return `line ${before.split("\n").length}, column ${offset - before.lastIndexOf("\n")}`
}

/** One message for a plan file that cannot be used: the file, then its problems (the first few). */
export function planProblem(file: string, problems: readonly string[]): string {
  const shown = problems.slice(0, 3).join("; ")
  return (
    `the plan file ${file} cannot be used: ${shown}` +
    `${problems.length > 3 ? `; and ${problems.length - 3} more` : ""}`
  )
}
