// Where a plan file keeps its stories: a top-level array; a list under `userStories`, `stories`,
// `tasks`, `features`, `items`, `user_stories`; `phases` with such a list inside each phase; or any
// of these one level down (`{ "prd": { … } }`). Each item comes with its path in the file, so the
// write-back edits exactly that object, and its position, which is its id when it has none. Pure.
import type { JSONPath } from "jsonc-parser"
import { own, type Item } from "./story-fields.js"

const LIST_KEYS = ["userStories", "user_stories", "stories", "tasks", "features", "items"] as const
const PHASES = "phases"
const PROJECT_KEYS = ["project", "projectName", "project_name", "name", "task", "title"] as const

export interface PlanEntry {
  /** Where the item is in the file. */
  at: JSONPath
  value: unknown
  /** 1-based: "3", or "2.1" for the first item of the second phase. */
  position: string
}

export interface PlanLayout {
  /**
   * Where the list was found, as a short label: `userStories`, `prd.tasks`, `phases[].tasks`, `[]` (a top-level array).
   */
  shape: string
  /** The object holding the list, if the file is not a bare array, and where it is. */
  holder: Item | undefined
  holderAt: JSONPath
  /** The key of the list of stories (inside each phase for `phases`), if there is one. */
  listKey: string | undefined
  entries: PlanEntry[]
}

export type Located = { ok: true; layout: PlanLayout } | { ok: false; problem: string }

const isObject = (value: unknown): value is Item => typeof value === "object" && value !== null && !Array.isArray(value)

export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "a list"
  if (value === null) return "null"
  return isObject(value) ? "an object" : `a ${typeof value}`
}

/** `found "tasks"`, `found a top-level array`: how a message names where the stories were found. */
export const foundLabel = (shape: string) => (shape === "[]" ? "a top-level array" : `"${shape}"`)

export function locatePlan(data: unknown): Located {
  if (Array.isArray(data)) return { ok: true, layout: listLayout(data, [], "[]", undefined, undefined, []) }
  if (!isObject(data))
    return { ok: false, problem: `expected a JSON object or array of stories, found ${kindOf(data)}` }
  const here = locateIn(data, [])
  if (here) return here
  for (const [key, value] of Object.entries(data)) {
    if (!isObject(value)) continue
    const nested = locateIn(value, [key])
    if (nested) return nested
  }
  const keys = Object.keys(data)
  return {
    ok: false,
    problem:
      `expected a list of stories — a top-level array, or ` +
      `${[...LIST_KEYS, PHASES].map((k) => `"${k}"`).join(", ")} (also one level down, as in {"prd": {…}}); ` +
      `found an object with ${
        keys.length === 0
          ? "no keys"
          : `the keys ${keys
              .slice(0, 8)
              .map((k) => `"${k}"`)
              .join(", ")}${keys.length > 8 ? ", …" : ""}`
      }`,
  }
}

/** The plan's name, if its holder has one. */
export function projectName(layout: PlanLayout): string | undefined {
  const holder = layout.holder
  const key =
    holder && PROJECT_KEYS.find((k) => typeof own(holder, k) === "string" && (holder[k] as string).trim() !== "")
  return key ? (holder?.[key] as string) : undefined
}

function locateIn(holder: Item, prefix: JSONPath): Located | undefined {
  const label = (key: string) => [...prefix, key].join(".")
  const key = LIST_KEYS.find((k) => own(holder, k) !== undefined && holder[k] !== null)
  if (key) {
    const list = holder[key]
    if (!Array.isArray(list))
      return { ok: false, problem: `found ${foundLabel(label(key))}, but it is ${kindOf(list)}, not a list of stories` }
    return { ok: true, layout: listLayout(list, [...prefix, key], label(key), holder, key, prefix) }
  }
  if (own(holder, PHASES) === undefined || holder[PHASES] === null) return undefined
  const phases = holder[PHASES]
  if (!Array.isArray(phases))
    return {
      ok: false,
      problem: `found ${foundLabel(label(PHASES))}, but it is ${kindOf(phases)}, not a list of phases`,
    }
  return { ok: true, layout: phasesLayout(phases, [...prefix, PHASES], label(PHASES), holder, prefix) }
}

function listLayout(
  list: unknown[],
  at: JSONPath,
  shape: string,
  holder: Item | undefined,
  listKey: string | undefined,
  holderAt: JSONPath,
): PlanLayout {
  return {
    shape,
    holder,
    holderAt,
    listKey,
    entries: list.map((value, index) => ({ at: [...at, index], value, position: String(index + 1) })),
  }
}

/** Each phase's inner list, flattened in order; a phase without one is itself a story. */
function phasesLayout(phases: unknown[], at: JSONPath, shape: string, holder: Item, holderAt: JSONPath): PlanLayout {
  const entries: PlanEntry[] = []
  let inner: string | undefined
  phases.forEach((phase, p) => {
    const key = isObject(phase) ? LIST_KEYS.find((k) => Array.isArray(own(phase, k))) : undefined
    if (!isObject(phase) || key === undefined) {
      entries.push({ at: [...at, p], value: phase, position: String(p + 1) })
      return
    }
    inner ??= key
    for (const [i, value] of (phase[key] as unknown[]).entries())
      entries.push({ at: [...at, p, key, i], value, position: `${p + 1}.${i + 1}` })
  })
  return { shape: inner ? `${shape}[].${inner}` : shape, holder, holderAt, listKey: inner, entries }
}
