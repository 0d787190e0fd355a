// `/ralph <task> [flags]`: flags as `--flag value` or `--flag=value`, values quoted or not, anywhere
// in the line; `--` ends the flags. The task is the rest of the line exactly as typed — flags never
// leak into it. Any unknown flag or bad value is an error naming it, and nothing starts.
import type { WorktreeRequest } from "../worktrees/worktree-start.js"
import type { Settings } from "../config/schema.js"
import { readFlag, type FlagState } from "./ralph-flags.js"
import { tokenize, type Token } from "./ralph-tokens.js"

export { looksLikePlanPath, RALPH_FLAGS, TASK_AFTER_DASHES } from "./ralph-flags.js"

/** `prd`: /ralph --prd [PATH] — true for the setting prdPath, else the path given. */
/** `worktree`: /ralph --worktree [NAME] [--with-changes]; `parallel`: /ralph --prd --parallel N;
 * `story`: /ralph --prd --story ID (that story only). */
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

export function parseRalphArgs(line: string): RalphArgs {
  const tokens = tokenize(line)
  if (typeof tokens === "string") return { ok: false, error: tokens }
  const state: FlagState = {
    overrides: {},
    cut: [],
    prd: undefined,
    worktree: undefined,
    withChanges: false,
    parallel: undefined,
    story: undefined,
  }
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as Token
    if (token.quoted || !token.text.startsWith("--")) continue
    if (token.text === "--") {
      state.cut.push([token.start, token.end])
      break
    }
    const read = readFlag(state, tokens, i)
    if (typeof read !== "number") return { ok: false, error: read.error }
    i += read
  }
  const conflict = flagConflict(state)
  if (conflict) return { ok: false, error: conflict }
  const { prd, worktree, parallel, story } = state
  if (worktree) worktree.withChanges = state.withChanges
  return {
    ok: true,
    task: taskOf(line, state.cut),
    overrides: state.overrides as Partial<Settings>,
    ...(prd !== undefined ? { prd } : {}),
    ...(worktree ? { worktree } : {}),
    ...(parallel !== undefined ? { parallel } : {}),
    ...(story !== undefined ? { story } : {}),
  }
}

/** The line without the flags and their values, spaces tidied: the task exactly as typed. */
function taskOf(line: string, cut: ReadonlyArray<[number, number]>): string {
  let task = ""
  let from = 0
  for (const [start, end] of cut) {
    task += `${line.slice(from, start)} `
    from = end
  }
  task += line.slice(from)
  return task
    .replace(/[ \t]{2,}/g, " ")
    .replace(/ *\n */g, "\n")
    .trim()
}

/** Flags that do not go together (or one that needs another). */
function flagConflict({ prd, worktree, withChanges, parallel, story }: FlagState): string | undefined {
  if (withChanges && !worktree) return "--with-changes goes with --worktree"
  if (parallel !== undefined && prd === undefined) {
    return "--parallel goes with --prd (it runs a plan's stories in worktrees at once)"
  }
  if (parallel !== undefined && worktree) return "--parallel makes one worktree per story; leave out --worktree"
  if (story !== undefined && prd === undefined) {
    return "--story goes with --prd (it runs one story of a plan: /ralph --prd PATH --story ID)"
  }
  if (story !== undefined && parallel !== undefined) {
    return "--story runs one story in this checkout; --parallel runs the plan's stories in worktrees: give one of them"
  }
  if (prd !== undefined && worktree) {
    return (
      "a plan loop runs in the project's own tree; --prd --parallel N runs its stories in worktrees " +
      "(one per story)"
    )
  }
  return undefined
}
