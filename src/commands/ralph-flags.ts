// The flags of /ralph: the ones that set a setting for one loop (RALPH_FLAGS) and the ones that choose
// how it runs (--prd, --worktree, --with-changes, --parallel, --story). Each reader takes its flag (and
// its value) off the line, records it, and says how many more words it took, or what is wrong.
import type { z } from "zod"
import { settingSchemas, type CheckConfig, type CheckKind, type Settings } from "../config/schema.js"
import { closest } from "../config/suggest.js"
import { invalidName, looksLikeWorktreeName } from "../worktrees/names.js"
import type { WorktreeRequest } from "../worktrees/worktree-start.js"
import type { Token } from "./ralph-tokens.js"

type FlagKey = keyof Settings

interface FlagSpec {
  key: FlagKey
  /** number: a numeric value; text: any value; switch: no value (or =true / =false). */
  kind: "number" | "text" | "switch" | "check"
}

/** The advice for a task word /ralph read as a flag (`ralph-loop run` gives its own: its shell words differ). */
export const TASK_AFTER_DASHES = "Put the task after -- if it contains words starting with --."

export const RALPH_FLAGS: Record<string, FlagSpec> = {
  "--max-iterations": { key: "maxIterations", kind: "number" },
  "--max-retries": { key: "maxRetries", kind: "number" },
  "--completion-promise": { key: "promiseWord", kind: "text" },
  "--max-calls-per-hour": { key: "maxCallsPerHour", kind: "number" },
  "--cooldown-minutes": { key: "cooldownMinutes", kind: "number" },
  "--no-progress-threshold": { key: "noProgressThreshold", kind: "number" },
  "--same-error-threshold": { key: "sameErrorThreshold", kind: "number" },
  "--strategy": { key: "strategy", kind: "text" },
  "--max-tokens": { key: "maxTokens", kind: "number" },
  "--max-cost": { key: "maxCost", kind: "number" },
  "--max-minutes": { key: "maxWallMinutes", kind: "number" },
  "--exit-gate": { key: "exitGate", kind: "text" },
  "--status-block": { key: "statusBlock", kind: "switch" },
  "--zero-errors": { key: "zeroErrors", kind: "switch" },
  "--zero-warnings": { key: "zeroWarnings", kind: "switch" },
  "--zero-security": { key: "zeroSecurity", kind: "switch" },
  "--tests-pass": { key: "testsPass", kind: "switch" },
  "--stagnation-limit": { key: "stagnationLimit", kind: "number" },
  "--check": { key: "checks", kind: "check" },
  "--review": { key: "review", kind: "switch" },
}

/** The kind of a check given as a bare command, from the tool it runs. */
function checkKind(command: string): CheckKind {
  if (/\b(tsc|mypy|pyright|flow)\b/.test(command)) return "typecheck"
  if (/\b(eslint|ruff|lint|clippy|golangci-lint|biome)\b/.test(command)) return "lint"
  if (/\b(semgrep|audit|bandit|ast-grep|sg scan|gitleaks)\b/.test(command)) return "security"
  return "test"
}

/** After --prd, a word is the plan's path (not the task) when it ends in .json/.jsonc or starts with ./, ../ or /. */
export const looksLikePlanPath = (word: string): boolean => /\.jsonc?$/i.test(word) || /^\.{0,2}\//.test(word)

/** What the flags said so far, and the spans of the line they took (cut out of the task). */
export interface FlagState {
  overrides: Record<string, unknown>
  cut: Array<[number, number]>
  prd: string | true | undefined
  worktree: WorktreeRequest | undefined
  withChanges: boolean
  parallel: number | undefined
  story: string | undefined
}

/** A flag read: how many words after it it took as its value (0 or 1), or what is wrong with it. */
export type FlagRead = number | { error: string }

/** The flag at tokens[i] (a word starting with --, not `--` itself). */
export function readFlag(state: FlagState, tokens: readonly Token[], i: number): FlagRead {
  const token = tokens[i] as Token
  const eq = token.text.indexOf("=")
  const name = eq < 0 ? token.text : token.text.slice(0, eq)
  const value = eq >= 0 ? token.text.slice(eq + 1) : undefined
  const next = tokens[i + 1]
  if (name === "--prd") return readPrd(state, token, value, next)
  if (name === "--worktree") return readWorktree(state, token, value, next)
  if (name === "--with-changes" && eq < 0) {
    state.withChanges = true
    state.cut.push([token.start, token.end])
    return 0
  }
  if (name === "--parallel") return readParallel(state, token, value, next)
  if (name === "--story") return readStory(state, token, value, next)
  return readSetting(state, name, token, value, next)
}

function readPrd(state: FlagState, token: Token, value: string | undefined, next: Token | undefined): FlagRead {
  if (state.prd !== undefined) return { error: "--prd is given twice" }
  const path =
    value !== undefined ? value.trim() : next && !next.quoted && looksLikePlanPath(next.text) ? next.text : undefined
  if (path === "") return { error: "--prd= needs a path (or use --prd alone for the setting prdPath)" }
  state.prd = path ?? true
  const takesNext = value === undefined && path !== undefined
  state.cut.push([token.start, takesNext ? (next as Token).end : token.end])
  return takesNext ? 1 : 0
}

function readWorktree(state: FlagState, token: Token, value: string | undefined, next: Token | undefined): FlagRead {
  if (state.worktree) return { error: "--worktree is given twice" }
  const named =
    value !== undefined
      ? value.trim()
      : next && !next.quoted && looksLikeWorktreeName(next.text)
        ? next.text
        : undefined
  if (named !== undefined) {
    const invalid = invalidName(named)
    if (invalid) return { error: `--worktree ${invalid}` }
  }
  state.worktree = { ...(named !== undefined ? { name: named } : {}), withChanges: false }
  const takesNext = value === undefined && named !== undefined
  state.cut.push([token.start, takesNext ? (next as Token).end : token.end])
  return takesNext ? 1 : 0
}

function readParallel(state: FlagState, token: Token, value: string | undefined, next: Token | undefined): FlagRead {
  const count = value ?? next?.text
  if (count === undefined || !/^\d+$/.test(count) || Number(count) < 1 || Number(count) > 16) {
    return { error: "--parallel needs a number of loops from 1 to 16" }
  }
  state.parallel = Number(count)
  state.cut.push([token.start, value !== undefined ? token.end : (next as Token).end])
  return value !== undefined ? 0 : 1
}

function readStory(state: FlagState, token: Token, value: string | undefined, next: Token | undefined): FlagRead {
  if (state.story !== undefined) return { error: "--story is given twice" }
  const id = value ?? (next && (next.quoted || !next.text.startsWith("--")) ? next.text : undefined)
  const invalid = storyIdProblem(id)
  if (invalid) return { error: `--story ${invalid}` }
  state.story = id as string
  state.cut.push([token.start, value !== undefined ? token.end : (next as Token).end])
  return value !== undefined ? 0 : 1
}

/** A flag of RALPH_FLAGS: a setting for this loop (--check adds a check). */
function readSetting(
  state: FlagState,
  name: string,
  token: Token,
  value: string | undefined,
  next: Token | undefined,
): FlagRead {
  const spec = RALPH_FLAGS[name]
  if (!spec) return { error: `unknown flag ${name}${suggestFlag(name)}. ${TASK_AFTER_DASHES}` }
  let raw: string | undefined = value
  let end = token.end
  let took = 0
  if (value === undefined && spec.kind !== "switch") {
    if (!next || (!next.quoted && next.text.startsWith("--"))) return { error: `${name} needs a value` }
    raw = next.text
    end = next.end
    took = 1
  }
  if (spec.kind === "check") {
    if (!raw?.trim()) return { error: `${name} needs a command` }
    state.overrides.checks ??= []
    const checks = state.overrides.checks as CheckConfig[]
    checks.push({ name: `check ${checks.length + 1}`, command: raw.trim(), kind: checkKind(raw) })
    state.cut.push([token.start, end])
    return took
  }
  const parsed = parseValue(spec, raw)
  if (!parsed.ok) return { error: `${name} ${raw === undefined ? "" : `${quote(raw)} `}is not valid: ${parsed.error}` }
  if (spec.key in state.overrides) return { error: `${name} is given twice` }
  state.overrides[spec.key] = parsed.value
  state.cut.push([token.start, end])
  return took
}

/** Why a --story value is no story id (undefined: it can be one; the plan says whether it is). */
function storyIdProblem(value: string | undefined): string | undefined {
  if (value === undefined) return "needs the id of a story of the plan"
  if (value.trim() === "" || value.trim() !== value) {
    return `${quote(value)} is not a story id (empty, or with spaces around it)`
  }
  if (value.length > 200) return `${quote(value)} is not a story id (longer than 200 characters)`
  // A control character would go into a branch name, a log line and the terminal.
  for (const ch of value) {
    if (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) {
      return `${quote(value)} is not a story id (it holds a control character)`
    }
  }
  return undefined
}

type Parsed = { ok: true; value: unknown } | { ok: false; error: string }

function parseValue(spec: FlagSpec, raw: string | undefined): Parsed {
  const schema = settingSchemas[spec.key] as z.ZodType
  let value: unknown = raw
  if (spec.kind === "switch") {
    if (raw === undefined || raw === "true") value = true
    else if (raw === "false") value = false
    else return { ok: false, error: "use the flag alone, or =true / =false" }
  } else if (spec.kind === "number") {
    if (!/^-?\d+(\.\d+)?$/.test(raw ?? "")) return { ok: false, error: "expected a number" }
    value = Number(raw)
  }
  const result = schema.safeParse(value)
  if (result.success) return { ok: true, value: result.data }
  return { ok: false, error: result.error.issues[0]?.message ?? "invalid" }
}

function suggestFlag(name: string): string {
  const known = [...Object.keys(RALPH_FLAGS), "--prd", "--worktree", "--with-changes", "--parallel", "--story"]
  const near = closest(name, known)
  return near ? ` (did you mean ${near}?)` : ` (known flags: ${known.join(", ")})`
}

/** A value as shown in an error: quoted, and cut if long (a 10 MB value must not fill the reply). */
function quote(raw: string): string {
  const text = JSON.stringify(raw)
  return text.length > 42 ? `${text.slice(0, 39)}…"` : text
}
