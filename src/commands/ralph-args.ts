// `/ralph <task> [flags]`: flags as `--flag value` or `--flag=value`, values quoted or not, anywhere
// in the line; `--` ends the flags. The task is the rest of the line exactly as typed — flags never
// leak into it. Any unknown flag or bad value is an error naming it, and nothing starts.
import type { z } from "zod"
import { settingSchemas, type CheckConfig, type CheckKind, type Settings } from "../config/schema.js"
import { closest } from "../config/suggest.js"
import { invalidName, looksLikeWorktreeName } from "../worktrees/names.js"

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

/** `prd`: /ralph --prd [PATH] — true for the setting prdPath, else the path given. */
/**
 * `worktree`: /ralph --worktree [NAME] [--with-changes]; `parallel`: /ralph --prd --parallel N; `story`: /ralph --prd
 * --story ID (that story only).
 */
export type RalphArgs =
  | {
      ok: true
      task: string
      overrides: Partial<Settings>
      prd?: string | true
      worktree?: WorktreeRequest
      parallel?: number
      story?: string
    }
  | { ok: false; error: string }

export interface WorktreeRequest {
  name?: string
  withChanges: boolean
}

/** After --prd, a word is the plan's path (not the task) when it ends in .json/.jsonc or starts with ./, ../ or /. */
export const looksLikePlanPath = (word: string): boolean => /\.jsonc?$/i.test(word) || /^\.{0,2}\//.test(word)

interface Token {
  text: string
  start: number
  end: number
  /** The token began with a quote, so it is never a flag. */
  quoted: boolean
}

/**
 * Splits like a shell: whitespace separates, '…' and "…" quote (\\ escapes inside "…") — a quote
 * opens only at the start of a word or after `=`, so an apostrophe ("the user's login") is a letter.
 * A bare `--` ends the flags and so the splitting: what follows is the task, verbatim (`-- Support '90s themes`).
 */
export function tokenize(line: string): Token[] | string {
  const tokens: Token[] = []
  let i = 0
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i] as string)) i += 1
    if (i >= line.length) break
    const start = i
    let text = ""
    let quoted = false
    while (i < line.length && !/\s/.test(line[i] as string)) {
      const ch = line[i] as string
      if ((ch === '"' || ch === "'") && (i === start || line[i - 1] === "=")) {
        const close = findClose(line, i + 1, ch)
        if (close < 0) return `unclosed ${ch} quote starting at character ${i + 1}`
        const inner = line.slice(i + 1, close)
        text += ch === '"' ? inner.replace(/\\(["\\])/g, "$1") : inner
        // Only a token that begins with a quote is "quoted": "--force" is text, --flag="x" a flag.
        if (i === start) quoted = true
        i = close + 1
      } else {
        text += ch
        i += 1
      }
    }
    tokens.push({ text, start, end: i, quoted })
    if (line.slice(start, i) === "--") break
  }
  return tokens
}

function findClose(line: string, from: number, quote: string): number {
  for (let i = from; i < line.length; i += 1) {
    if (quote === '"' && line[i] === "\\") i += 1
    else if (line[i] === quote) return i
  }
  return -1
}

export function parseRalphArgs(line: string): RalphArgs {
  const tokens = tokenize(line)
  if (typeof tokens === "string") return { ok: false, error: tokens }
  const overrides: Record<string, unknown> = {}
  const cut: Array<[number, number]> = []
  let prd: string | true | undefined
  let worktree: WorktreeRequest | undefined
  let withChanges = false
  let parallel: number | undefined
  let story: string | undefined
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as Token
    if (token.quoted || !token.text.startsWith("--")) continue
    if (token.text === "--") {
      cut.push([token.start, token.end])
      break
    }
    const eq = token.text.indexOf("=")
    const name = eq < 0 ? token.text : token.text.slice(0, eq)
    if (name === "--prd") {
      if (prd !== undefined) return { ok: false, error: "--prd is given twice" }
      const next = tokens[i + 1]
      const path =
        eq >= 0
          ? token.text.slice(eq + 1).trim()
          : next && !next.quoted && looksLikePlanPath(next.text)
            ? next.text
            : undefined
      if (path === "") return { ok: false, error: "--prd= needs a path (or use --prd alone for the setting prdPath)" }
      prd = path ?? true
      cut.push([token.start, eq < 0 && path !== undefined ? (next as Token).end : token.end])
      if (eq < 0 && path !== undefined) i += 1
      continue
    }
    if (name === "--worktree") {
      if (worktree) return { ok: false, error: "--worktree is given twice" }
      const next = tokens[i + 1]
      const named =
        eq >= 0
          ? token.text.slice(eq + 1).trim()
          : next && !next.quoted && looksLikeWorktreeName(next.text)
            ? next.text
            : undefined
      if (named !== undefined) {
        const invalid = invalidName(named)
        if (invalid) return { ok: false, error: `--worktree ${invalid}` }
      }
      worktree = { ...(named !== undefined ? { name: named } : {}), withChanges: false }
      cut.push([token.start, eq < 0 && named !== undefined ? (next as Token).end : token.end])
      if (eq < 0 && named !== undefined) i += 1
      continue
    }
    if (name === "--with-changes" && eq < 0) {
      withChanges = true
      cut.push([token.start, token.end])
      continue
    }
    if (name === "--parallel") {
      const value = eq >= 0 ? token.text.slice(eq + 1) : tokens[i + 1]?.text
      if (value === undefined || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 16)
        return { ok: false, error: "--parallel needs a number of loops from 1 to 16" }
      parallel = Number(value)
      cut.push([token.start, eq >= 0 ? token.end : (tokens[i + 1] as Token).end])
      if (eq < 0) i += 1
      continue
    }
    if (name === "--story") {
      if (story !== undefined) return { ok: false, error: "--story is given twice" }
      const next = tokens[i + 1]
      const value =
        eq >= 0
          ? token.text.slice(eq + 1)
          : next && (next.quoted || !next.text.startsWith("--"))
            ? next.text
            : undefined
      const invalid = storyIdProblem(value)
      if (invalid) return { ok: false, error: `--story ${invalid}` }
      story = value as string
      cut.push([token.start, eq >= 0 ? token.end : (next as Token).end])
      if (eq < 0) i += 1
      continue
    }
    const spec = RALPH_FLAGS[name]
    if (!spec) return { ok: false, error: `unknown flag ${name}${suggestFlag(name)}. ${TASK_AFTER_DASHES}` }
    let raw: string | undefined
    let end = token.end
    if (eq >= 0) raw = token.text.slice(eq + 1)
    else if (spec.kind === "switch") raw = undefined
    else {
      const value = tokens[i + 1]
      if (!value || (!value.quoted && value.text.startsWith("--"))) return { ok: false, error: `${name} needs a value` }
      raw = value.text
      end = value.end
      i += 1
    }
    if (spec.kind === "check") {
      if (!raw?.trim()) return { ok: false, error: `${name} needs a command` }
      const checks = (overrides.checks ??= []) as CheckConfig[]
      checks.push({ name: `check ${checks.length + 1}`, command: raw.trim(), kind: checkKind(raw) })
      cut.push([token.start, end])
      continue
    }
    const parsed = parseValue(spec, raw)
    if (!parsed.ok)
      return { ok: false, error: `${name} ${raw === undefined ? "" : `${quote(raw)} `}is not valid: ${parsed.error}` }
    if (spec.key in overrides) return { ok: false, error: `${name} is given twice` }
    overrides[spec.key] = parsed.value
    cut.push([token.start, end])
  }
  let task = ""
  let from = 0
  for (const [start, end] of cut) {
    task += `${line.slice(from, start)} `
    from = end
  }
  task += line.slice(from)
  task = task
    .replace(/[ \t]{2,}/g, " ")
    .replace(/ *\n */g, "\n")
    .trim()
  if (withChanges && !worktree) return { ok: false, error: "--with-changes goes with --worktree" }
  if (parallel !== undefined && prd === undefined)
    return { ok: false, error: "--parallel goes with --prd (it runs a plan's stories in worktrees at once)" }
  if (parallel !== undefined && worktree)
    return { ok: false, error: "--parallel makes one worktree per story; leave out --worktree" }
  if (story !== undefined && prd === undefined)
    return { ok: false, error: "--story goes with --prd (it runs one story of a plan: /ralph --prd PATH --story ID)" }
  if (story !== undefined && parallel !== undefined)
    return {
      ok: false,
      error:
        "--story runs one story in this checkout; --parallel runs the plan's stories in worktrees: give one of them",
    }
  if (prd !== undefined && worktree)
    return {
      ok: false,
      error:
        "a plan loop runs in the project's own tree; --prd --parallel N runs its stories in worktrees (one per story)",
    }
  if (worktree) worktree.withChanges = withChanges
  return {
    ok: true,
    task,
    overrides: overrides as Partial<Settings>,
    ...(prd !== undefined ? { prd } : {}),
    ...(worktree ? { worktree } : {}),
    ...(parallel !== undefined ? { parallel } : {}),
    ...(story !== undefined ? { story } : {}),
  }
}

/** Why a --story value is no story id (undefined: it can be one; the plan says whether it is). */
function storyIdProblem(value: string | undefined): string | undefined {
  if (value === undefined) return "needs the id of a story of the plan"
  if (value.trim() === "" || value.trim() !== value)
    return `${quote(value)} is not a story id (empty, or with spaces around it)`
  if (value.length > 200) return `${quote(value)} is not a story id (longer than 200 characters)`
  // A control character would go into a branch name, a log line and the terminal.
  for (const ch of value)
    if (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)
      return `${quote(value)} is not a story id (it holds a control character)`
  return undefined
}

function parseValue(
  spec: FlagSpec,
  raw: string | undefined,
): { ok: true; value: unknown } | { ok: false; error: string } {
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
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, error: result.error.issues[0]?.message ?? "invalid" }
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
