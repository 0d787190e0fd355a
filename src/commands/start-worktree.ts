// /ralph --worktree [NAME] <task> (or the setting worktree): the loop runs in its own git worktree,
// in that directory's own OpenCode instance — a session created there gets `/ralph <task>`, and
// the plugin of that instance runs the loop as any other. This session only hears of it (toasts,
// /ralph-status); the WorktreeWatch merges the branch back when the loop completes.
import { join, relative } from "node:path"
import type { Part } from "@opencode-ai/sdk"
import type { Settings } from "../config/schema.js"
import type { RalphContext } from "../context.js"
import { createWorktree, WorktreeError } from "../actions/worktree-git.js"
import { prepareWorktreeConfig } from "../actions/worktree-config.js"
import { isLive, readWorktrees } from "../store/worktree-loops.js"
import { readWorktreeState, writeWorktreeState } from "../store/worktree-file.js"
import { readNewestLoops } from "../store/saved-loops.js"
import { STATE_DIR } from "../project/own-files.js"
import { nameFromTask } from "../worktree/names.js"
import type { WorktreeState } from "../worktree/worktree-state.js"
import type { WorktreeRequest } from "./ralph-args.js"
import { replaceText } from "./text.js"
import { ignoreOwnFolder } from "../store/loop-store.js"

export interface WorktreeStart {
  task: string
  overrides: Partial<Settings>
  request: WorktreeRequest
  /** A story of a parallel plan run, and the run's id. */
  story?: string
  run?: string
}

/** `full`: refused only because maxParallelLoops worktree loops run already (a later try may start). */
export type WorktreeStarted = { ok: true; state: WorktreeState; path: string; sessionID: string } | { ok: false; error: string; full?: true }

/** Makes the worktree and starts its loop there; the command's own turn is told what happened. */
export async function startInWorktree(ctx: RalphContext, sessionID: string, start: WorktreeStart, parts: Part[]): Promise<void> {
  const started = await launchWorktreeLoop(ctx, sessionID, start)
  if (!started.ok) {
    ctx.api.toast("error", "Ralph · not started", `/ralph --worktree: ${started.error}`)
    replaceText(parts, `The user typed /ralph --worktree but no Ralph loop was started: ${started.error}. Tell them exactly that in one or two sentences and do nothing else.`)
    return
  }
  const where = relative(ctx.directory, started.path)
  replaceText(
    parts,
    `A Ralph loop now runs on this task in its own git worktree ${where} (branch ${started.state.branch}); this session only shows its progress. Tell the user that in one sentence and do nothing else. The task: ${start.task}`,
  )
}

export async function launchWorktreeLoop(ctx: RalphContext, fromSession: string, start: WorktreeStart): Promise<WorktreeStarted> {
  const settings = { ...ctx.settings.current, ...start.overrides }
  const worktrees = await readWorktrees(ctx.directory)
  const live = worktrees.filter(isLive).length
  if (live >= settings.maxParallelLoops) return { ok: false, error: `${live} worktree loops run already (maxParallelLoops is ${settings.maxParallelLoops}); wait for one to end or raise the setting`, full: true }
  const name = start.request.name ?? nameFromTask(start.task, new Set(worktrees.map((w) => w.name)))
  if (worktrees.some((w) => w.name === name)) return { ok: false, error: `the worktree ${name} exists already; choose another name (ralph-loop worktrees lists them)` }
  let made: { path: string; state: WorktreeState } | undefined
  try {
    const { path, base } = await createWorktree(ctx.directory, name, start.request.withChanges)
    const state: WorktreeState = {
      name,
      branch: `ralph/${name}`,
      mainDirectory: ctx.directory,
      base,
      mergeStrategy: settings.mergeStrategy,
      fromSession,
      createdAt: ctx.now(),
      ...(start.story ? { story: start.story } : {}),
      ...(start.run ? { run: start.run } : {}),
      ...(Object.keys(start.overrides).length > 0 ? { overrides: start.overrides } : {}),
    }
    made = { path, state }
    await ignoreOwnFolder(ctx.directory)
    await prepareWorktreeConfig(ctx.directory, path)
    await writeWorktreeState(path, state)
    const session = await ctx.api.createSessionIn(path, `Ralph · ${start.task.split("\n")[0]?.slice(0, 60)}`)
    // The loop's first turn runs for as long as the model works: not awaited.
    void confirmStarted(ctx, path, state, ctx.api.command(path, session.id, "ralph", `-- ${start.task}`))
    ctx.api.log("info", "worktree loop started", { worktree: path, branch: state.branch, session: session.id })
    ctx.api.toast("info", `Ralph · worktree ${name}`, `Loop started on branch ${state.branch} in ${relative(ctx.directory, path)}. /ralph-status shows its progress; it is merged back by ${state.mergeStrategy} when it completes.`)
    ctx.worktrees.start()
    return { ok: true, state, path, sessionID: session.id }
  } catch (error) {
    if (!made) return { ok: false, error: error instanceof WorktreeError ? error.message : `could not make the worktree: ${String(error)}` }
    // The worktree is there, its loop is not: recorded as failed, so it no longer counts as running.
    const detail = `the loop could not be started in the worktree ${name}: ${String(error)}`
    await recordNotStarted(ctx, made.path, made.state, detail)
    return { ok: false, error: detail }
  }
}

/**
 * The worktree's `/ralph` has run (its first turn ended) or failed. No loop there (the plugin is not
 * loaded in the worktree, or its /ralph was refused) is the start's failure: the worktree is
 * recorded as failed, so it no longer holds a place under maxParallelLoops and `clean` takes it,
 * and a parallel run counts its story as failed and goes on.
 */
async function confirmStarted(ctx: RalphContext, path: string, state: WorktreeState, command: Promise<void>): Promise<void> {
  try {
    const failure = await command.then(
      () => undefined,
      (error: unknown) => ({ error }),
    )
    if (readWorktreeState(path)?.merge || (await readNewestLoops(join(path, STATE_DIR, "loops"), 1)).length > 0) return
    const detail = failure
      ? `the loop could not be started in the worktree: ${String(failure.error)}; is ralph-loop in a config the worktree sees (committed, global, or its .opencode/)?`
      : "no loop started in the worktree: its /ralph was refused (the worktree's session says why)"
    await recordNotStarted(ctx, path, state, detail)
    ctx.api.toast("error", `Ralph · worktree ${state.name}`, detail, 15_000)
    if (state.story) ctx.parallel.notStarted(state, detail)
  } catch (error) {
    ctx.api.log("error", `worktree ${state.name}: could not learn whether its loop started: ${String(error)}`, { worktree: path })
  }
}

async function recordNotStarted(ctx: RalphContext, path: string, state: WorktreeState, detail: string): Promise<void> {
  await writeWorktreeState(path, { ...state, merge: { result: "failed", detail } }).catch(() => undefined)
  ctx.api.log("error", `worktree ${state.name}: ${detail}`, { worktree: path })
}
