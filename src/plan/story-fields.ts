// Where each part of a story is read from, in the shapes people already write (docs/plans.md's
// table "What is read from where"): the first name present wins. Each reader answers with the value or
// with what is wrong with it, naming the field as the file spells it. Pure.
import { z } from "zod"
import { checkSchema, type CheckConfig } from "../config/schema.js"

export const STORY_FIELDS = {
  id: ["id", "storyId", "story_id", "key"],
  title: ["title", "name", "summary"],
  description: ["description", "desc", "details"],
  acceptanceCriteria: ["acceptanceCriteria", "acceptance_criteria", "criteria", "steps", "verification", "acceptance"],
  priority: ["priority"],
  dependsOn: ["dependsOn", "depends_on", "dependencies", "blockedBy", "blocked_by"],
  checks: ["checks"],
} as const

export type Item = Record<string, unknown>
export type Read<T> = { value: T } | { problem: string }

/** The item's own field `key` (never one of Object.prototype's: `constructor`, `toString`, …). */
export const own = (item: Item, key: string): unknown => (Object.hasOwn(item, key) ? item[key] : undefined)

/** The first of `names` the item has (null counts as absent), with its name as written. */
function pick(item: Item, names: readonly string[]): { key: string; value: unknown } | undefined {
  const key = names.find((name) => own(item, name) !== undefined && own(item, name) !== null)
  return key === undefined ? undefined : { key, value: item[key] }
}

const ok = <T>(value: T): Read<T> => ({ value })
const wrong = (key: string, what: string): Read<never> => ({ problem: `has "${key}" that is not ${what}` })

/** An id as text: a string, or a number (`1.1.0`, `US-001`, `7`). */
function idText(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined
}

export function readId(item: Item): Read<string | undefined> {
  const found = pick(item, STORY_FIELDS.id)
  if (!found) return ok(undefined)
  const id = idText(found.value)
  return id === undefined ? wrong(found.key, "a non-empty text or a number") : ok(id)
}

export function readText(item: Item, names: readonly string[]): Read<string | undefined> {
  const found = pick(item, names)
  if (!found) return ok(undefined)
  if (typeof found.value !== "string") return wrong(found.key, "text")
  return ok(found.value.trim() === "" ? undefined : found.value)
}

/** A list of strings, or one string (then the one criterion). */
export function readCriteria(item: Item): Read<string[]> {
  const found = pick(item, STORY_FIELDS.acceptanceCriteria)
  if (!found) return ok([])
  if (typeof found.value === "string") return ok(found.value.trim() ? [found.value] : [])
  if (Array.isArray(found.value) && found.value.every((c) => typeof c === "string"))
    return ok(found.value.filter((c) => c.trim() !== ""))
  return wrong(found.key, "a list of strings")
}

// A Map: a word from the file (`"__proto__"`, `"constructor"`) must not find Object.prototype's.
const PRIORITY_WORDS = new Map([
  ["critical", 0],
  ["urgent", 0],
  ["highest", 0],
  ["high", 1],
  ["medium", 2],
  ["normal", 2],
  ["mid", 2],
  ["low", 3],
  ["lowest", 4],
])

/**
 * Lower comes first. A number as it is; `"P1"` → 1; `"high"` → 1 (critical 0, medium 2, low 3,
 * lowest 4); a number in a string as that number; `null` or none: file order, after the others.
 */
export function readPriority(item: Item): Read<number | undefined> {
  const found = pick(item, STORY_FIELDS.priority)
  if (!found) return ok(undefined)
  if (typeof found.value === "number" && Number.isFinite(found.value)) return ok(found.value)
  if (typeof found.value === "string") {
    const word = found.value.trim().toLowerCase()
    const level = /^p(\d+)$/.exec(word)?.[1]
    if (level !== undefined) return ok(Number(level))
    const ranked = PRIORITY_WORDS.get(word)
    if (ranked !== undefined) return ok(ranked)
    if (word !== "" && Number.isFinite(Number(word))) return ok(Number(word))
  }
  return wrong(
    found.key,
    `a number, "high", "medium", "low" (or critical, lowest) or P0–P4 (it is ${JSON.stringify(found.value)})`,
  )
}

/** Ids of the stories this one waits for: a list, or one id. */
export function readDependsOn(item: Item): Read<string[]> {
  const found = pick(item, STORY_FIELDS.dependsOn)
  if (!found) return ok([])
  const list = Array.isArray(found.value) ? found.value : [found.value]
  const ids = list.map(idText)
  return ids.every((id): id is string => id !== undefined) ? ok(ids) : wrong(found.key, "a list of story ids")
}

const storyChecks = z.array(checkSchema.extend({ kind: checkSchema.shape.kind.default("test") }))

export function readChecks(item: Item): Read<CheckConfig[]> {
  const found = pick(item, STORY_FIELDS.checks)
  if (!found) return ok([])
  const result = storyChecks.safeParse(found.value)
  if (result.success) return ok(result.data)
  const issue = result.error.issues[0]
  return {
    problem:
      `has "checks" that are not valid` +
      `${issue ? ` (${issue.path.join(".") || "the list"}: ${issue.message})` : ""}`,
  }
}
