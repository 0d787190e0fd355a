// The plan file: both shapes read with zod (unknown fields allowed — write-back keeps them), then
// the rules zod cannot say (unique ids, dependencies that exist and do not go round). A broken file
// gets problems that name the story and the field. Pure.
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser"
import { z } from "zod"
import { checkSchema } from "../config/schema.js"
import type { PlanShape, Story } from "./plan.js"

export interface ParsedPlan {
  shape: PlanShape
  project?: string | undefined
  stories: Story[]
  /** Ids the file marks done (`passes: true` / `status: "completed"`). */
  doneInFile: string[]
}

export type PlanRead = { ok: true; plan: ParsedPlan } | { ok: false; problems: string[] }

const must = (what: string) => ({ error: (issue: { input?: unknown }) => (issue.input === undefined ? "is missing" : `must be ${what}`) })
const text = z.string(must("a string")).trim().min(1, "must not be empty")
const id = z.preprocess((v) => (typeof v === "number" ? String(v) : v), text)
const strings = z.array(z.string(must("a string")), must("a list of strings"))
const ids = z.array(id, must("a list of story ids"))
const storyCheck = checkSchema.extend({ kind: checkSchema.shape.kind.default("test") })

/** What both story shapes share. */
const storyBase = {
  id,
  title: text,
  description: z.string(must("a string")).optional(),
  priority: z.number(must("a number")).optional(),
  dependsOn: ids.optional(),
  checks: z.array(storyCheck, must("a list of checks")).optional(),
}

const commonStory = z.looseObject({ ...storyBase, acceptanceCriteria: strings, passes: z.boolean(must("true or false")).optional() })
const seedStory = z.looseObject({
  ...storyBase,
  acceptance_criteria: strings,
  status: z.enum(["pending", "in_progress", "completed"], must('"pending", "in_progress" or "completed"')).optional(),
  iteration: z.number(must("a number")).optional(),
})

const commonPlan = z.looseObject({
  project: z.string(must("a string")).optional(),
  name: z.string(must("a string")).optional(),
  userStories: z.array(commonStory, must("a list of stories")).min(1, "has no stories"),
})
const seedPlan = z.looseObject({
  task: z.string(must("a string")).optional(),
  stories: z.array(seedStory, must("a list of stories")).min(1, "has no stories"),
})

/** Reads a plan file's text; `problems` say what is wrong, each naming the story and the field. */
export function parsePlan(source: string): PlanRead {
  const errors: ParseError[] = []
  const data: unknown = parse(source, errors, { allowTrailingComma: true })
  if (errors.length > 0) return { ok: false, problems: [`not valid JSON: ${syntaxError(source, errors[0] as ParseError)}`] }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { ok: false, problems: ["must be a JSON object with a \"userStories\" (or \"stories\") list"] }
  const shape: PlanShape | undefined = "userStories" in data ? "userStories" : "stories" in data ? "stories" : undefined
  if (!shape) return { ok: false, problems: ['has no "userStories" list (nor seed 003\'s "stories")'] }
  const raw = (data as Record<string, unknown>)[shape]
  const read = shape === "userStories" ? readCommon(data) : readSeed(data)
  if ("problems" in read) return { ok: false, problems: read.problems.map((issue) => describeIssue(issue.path, issue.message, raw)) }
  const plan = read.plan
  const problems = [...duplicateIDs(plan.stories), ...badDependencies(plan.stories)]
  return problems.length > 0 ? { ok: false, problems } : { ok: true, plan }
}

type Issues = { problems: Array<{ path: readonly PropertyKey[]; message: string }> }

function readCommon(data: object): { plan: ParsedPlan } | Issues {
  const result = commonPlan.safeParse(data)
  if (!result.success) return { problems: result.error.issues }
  const { project, name, userStories } = result.data
  return {
    plan: {
      shape: "userStories",
      project: project ?? name,
      stories: userStories.map((s) => story(s, s.acceptanceCriteria)),
      doneInFile: userStories.filter((s) => s.passes === true).map((s) => s.id),
    },
  }
}

function readSeed(data: object): { plan: ParsedPlan } | Issues {
  const result = seedPlan.safeParse(data)
  if (!result.success) return { problems: result.error.issues }
  const { task, stories } = result.data
  return {
    plan: {
      shape: "stories",
      project: task,
      stories: stories.map((s) => story(s, s.acceptance_criteria)),
      doneInFile: stories.filter((s) => s.status === "completed").map((s) => s.id),
    },
  }
}

type StoryData = z.output<typeof commonStory> | z.output<typeof seedStory>

function story(s: StoryData, acceptanceCriteria: string[]): Story {
  return {
    id: s.id,
    title: s.title,
    ...(s.description !== undefined ? { description: s.description } : {}),
    acceptanceCriteria,
    ...(s.priority !== undefined ? { priority: s.priority } : {}),
    dependsOn: s.dependsOn ?? [],
    checks: s.checks ?? [],
  }
}

/** `story US-002 (#2): field "acceptanceCriteria": is missing` */
function describeIssue(path: readonly PropertyKey[], message: string, stories: unknown): string {
  const [top, index, ...field] = path
  if (typeof index !== "number") return `field "${String(top ?? "file")}": ${message}`
  const label = storyLabel(stories, index)
  return field.length === 0 ? `${label}: ${message}` : `${label}: field "${fieldName(field)}": ${message}`
}

function storyLabel(stories: unknown, index: number): string {
  const entry = Array.isArray(stories) ? (stories[index] as { id?: unknown } | undefined) : undefined
  const id = typeof entry?.id === "string" || typeof entry?.id === "number" ? String(entry.id).trim() : ""
  return id ? `story ${id} (#${index + 1})` : `story #${index + 1}`
}

const fieldName = (path: readonly PropertyKey[]) => path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i > 0 ? "." : ""}${String(p)}`)).join("")

function duplicateIDs(stories: readonly Story[]): string[] {
  const first = new Map<string, number>()
  const problems: string[] = []
  stories.forEach((s, i) => {
    const seen = first.get(s.id)
    if (seen === undefined) first.set(s.id, i)
    else problems.push(`story ${s.id} (#${i + 1}): field "id": "${s.id}" is used twice (also by story #${seen + 1})`)
  })
  return problems
}

function badDependencies(stories: readonly Story[]): string[] {
  const known = new Set(stories.map((s) => s.id))
  const problems: string[] = []
  for (const s of stories)
    for (const dep of s.dependsOn) if (!known.has(dep)) problems.push(`story ${s.id}: field "dependsOn": no story has the id "${dep}"`)
  if (problems.length > 0) return problems
  const cycle = findCycle(stories)
  return cycle ? [`story ${cycle[0]}: field "dependsOn": the stories ${cycle.join(" → ")} wait for each other, so none of them can start`] : []
}

/** A dependency cycle, as the ids along it (the first repeated at the end), if there is one. */
function findCycle(stories: readonly Story[]): string[] | undefined {
  const deps = new Map(stories.map((s) => [s.id, s.dependsOn]))
  const state = new Map<string, "open" | "closed">()
  const trail: string[] = []
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "closed") return undefined
    if (state.get(id) === "open") return [...trail.slice(trail.indexOf(id)), id]
    state.set(id, "open")
    trail.push(id)
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep)
      if (found) return found
    }
    trail.pop()
    state.set(id, "closed")
    return undefined
  }
  for (const s of stories) {
    const found = visit(s.id)
    if (found) return found
  }
  return undefined
}

function syntaxError(source: string, error: ParseError): string {
  const before = source.slice(0, error.offset)
  const line = before.split("\n").length
  const column = error.offset - before.lastIndexOf("\n")
  return `line ${line}, column ${column}: ${printParseErrorCode(error.error)}`
}

/** One message for a broken plan file: the file, then its problems (the first few). */
export function planProblem(file: string, problems: readonly string[]): string {
  const shown = problems.slice(0, 3).join("; ")
  return `the plan file ${file} is broken: ${shown}${problems.length > 3 ? `; and ${problems.length - 3} more` : ""}`
}
