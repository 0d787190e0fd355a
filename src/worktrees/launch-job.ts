// A worktree loop starts: counted against maxParallelLoops (the one lifecycle says which are live),
// named, made (`worktree-launch`), then its `/ralph` sent in a job of its own, which waits for the
// command's first turn and records a loop that did not start there as failed. The caller holds the
// launch lock (ParallelPlan.lock), so no two launches count the same free place.
import { relative } from "node:path"
import type { WorktreeContext } from "./worktree-context.js"
import type { WorktreeStart, WorktreeStarted } from "../worktrees/worktree-start.js"
import { isLive, leftByFailedStart, stageOf } from "./lifecycle.js"
import { branchOf, nameFromTask } from "./names.js"
import type { WorktreeState } from "./worktree-state.js"
import type { WorktreeEntry } from "./worktree-loops.js"
import { io, type Job } from "../effects/kernel.js"
import { log } from "../effects/jobs.js"
import { cancelStoryLoop } from "./story-cancel.js"

export function* launchWorktree(ctx: WorktreeContext, fromSession: string, start: WorktreeStart): Job<WorktreeStarted> {
  const settings = { ...ctx.settings.current, ...start.overrides }
  const title = `Ralph · ${start.task.split("\n")[0]?.slice(0, 60)}`
  const worktrees = yield* io({ kind: "worktrees", launcher: ctx.launcher })
  const live = worktrees.filter(isLive).length
  if (live >= settings.maxParallelLoops)
    return {
      ok: false,
      error:
        `${live} worktree loops run already (maxParallelLoops is ${settings.maxParallelLoops}); wait for ` +
        `one to end or raise the setting`,
      full: true,
    }
  const started = start.slot?.path
    ? yield* io({
        kind: "slot-reset",
        path: start.slot.path,
        state: stateOf(ctx, fromSession, start, start.slot.name),
        title,
      })
    : yield* launchNew(ctx, fromSession, start, worktrees, title)
  if (!started.ok) return started
  yield* log("info", "worktree loop started", {
    worktree: started.path,
    branch: started.state.branch,
    session: started.sessionID,
    ...(start.slot ? { slot: start.slot.name, story: start.story, instance: start.slot.path ? "kept" : "new" } : {}),
  })
  yield {
    kind: "toast",
    notice: {
      variant: "info",
      title: `Ralph · worktree ${started.state.name}`,
      message:
        `Loop started on branch ${started.state.branch} in ${relative(ctx.directory, started.path)}. ` +
        `/ralph-status shows its progress; it is merged back by ${started.state.mergeStrategy} when it completes.`,
    },
  }
  ctx.worktrees.start()
  // The loop's first turn runs for as long as the model works: its own job, not awaited here.
  yield {
    kind: "spawn",
    label: `start of the worktree loop ${started.state.name}`,
    job: confirmStarted(ctx, started.path, started.state, started.sessionID, start.task),
  }
  return started
}

/** A new worktree: named (a slot's, the request's, or one from the task), made on its branch, a session there. */
function* launchNew(
  ctx: WorktreeContext,
  fromSession: string,
  start: WorktreeStart,
  worktrees: WorktreeEntry[],
  title: string,
): Job<WorktreeStarted> {
  const name = start.slot?.name ?? start.request.name ?? nameFromTask(start.task, new Set(worktrees.map((w) => w.name)))
  const there = worktrees.find((w) => w.name === name)
  if (there && !leftByFailedStart(there))
    return {
      ok: false,
      error: `the worktree ${name} exists already; choose another name (ralph-loop worktrees lists them)`,
    }
  if (there) {
    // Left by a start of this name that did not finish: its place is taken once git shows it holds nothing.
    // A slot's folder is on its story's branch (which one, only its worktree.json says).
    const branch = start.slot ? there.state?.branch : branchOf(name)
    const reclaimed = yield* io({
      kind: "worktree-reclaim",
      name,
      path: there.path,
      base: there.state?.base.commit,
      branch,
    })
    if (!reclaimed.ok)
      return {
        ok: false,
        error:
          `the worktree ${name} exists already, left by a start that did not finish, and is kept: ` +
          `${reclaimed.why}; choose another name, or look at it and remove it (git worktree remove)`,
        // The run's story goes to another slot; this one is passed over.
        ...(start.slot ? { slotRetired: true as const } : {}),
      }
    yield* log("info", `worktree ${name}: removed what a start that did not finish left, to start again`, {
      worktree: there.path,
    })
  }
  return yield* io({
    kind: "worktree-launch",
    state: stateOf(ctx, fromSession, start, name),
    withChanges: start.request.withChanges,
    title,
  })
}

/** What worktree.json says of the loop (the base is git's, once the branch is made). */
function stateOf(
  ctx: WorktreeContext,
  fromSession: string,
  start: WorktreeStart,
  name: string,
): Omit<WorktreeState, "base"> {
  const settings = { ...ctx.settings.current, ...start.overrides }
  const loopName = start.slot ? (start.request.name ?? name) : name
  return {
    name,
    branch: `ralph/${loopName}`,
    mainDirectory: ctx.directory,
    mergeStrategy: settings.mergeStrategy,
    fromSession,
    createdAt: ctx.now(),
    launch: ctx.launcher,
    ...(start.story ? { story: start.story } : {}),
    ...(start.run ? { run: start.run } : {}),
    ...(start.slot ? { slot: true as const } : {}),
    ...(Object.keys(start.overrides).length > 0 ? { overrides: start.overrides } : {}),
  }
}

/**
 * The worktree's `/ralph` has run (its first turn ended) or failed. No loop there (the plugin is not
 * loaded in the worktree, or its /ralph was refused) is the start's failure: the worktree is
 * recorded as failed, so it no longer holds a place under maxParallelLoops and `clean` takes it,
 * and a parallel run counts its story as failed and goes on.
 */
function* confirmStarted(
  ctx: WorktreeContext,
  path: string,
  state: WorktreeState,
  sessionID: string,
  task: string,
): Job {
  const { failure } = yield* io({ kind: "worktree-command", path, sessionID, task })
  const entry = (yield* io({ kind: "worktrees", launcher: ctx.launcher })).find((w) => w.name === state.name)
  // The run was cancelled while this story's /ralph ran: its loop started all the same, and is cancelled now.
  const run = state.story ? yield* io({ kind: "parallel-run" }) : undefined
  if (run?.cancelled && entry && entry.state?.story === state.story && stageOf(entry) === "running")
    return yield* cancelStoryLoop(path, state.story ?? "", run.cancelled)
  if (!entry || stageOf(entry) !== "starting") return
  const detail = failure
    ? `the loop could not be started in the worktree: ${failure}; is ralph-loop in a config the worktree sees ` +
      `(committed, global, or its .opencode/)?`
    : "no loop started in the worktree: its /ralph was refused (the worktree's session says why)"
  yield* notStarted(ctx, path, state, detail)
}

/**
 * A start OpenCode's stop cut off (its launcher is gone, no loop was saved there): nothing will
 * start that loop now, so it failed to start — recorded as such, as any other start that failed.
 */
export function* startCut(ctx: WorktreeContext, path: string, state: WorktreeState): Job {
  const entry = (yield* io({ kind: "worktrees", launcher: ctx.launcher })).find((w) => w.name === state.name)
  if (!entry || stageOf(entry) !== "unstarted") return
  yield* notStarted(ctx, path, state, "its start was cut off: OpenCode stopped before the loop started in the worktree")
}

function* notStarted(ctx: WorktreeContext, path: string, state: WorktreeState, detail: string): Job {
  yield* recordNotStarted(path, state, detail)
  yield {
    kind: "toast",
    notice: { variant: "error", title: `Ralph · worktree ${state.name}`, message: detail, duration: 15_000 },
  }
  if (state.story) ctx.parallel.notStarted(state, detail)
}

function* recordNotStarted(path: string, state: WorktreeState, detail: string): Job {
  try {
    yield* io({ kind: "worktree-record", directory: path, state: { ...state, merge: { result: "failed", detail } } })
  } catch {
    // Said in the log below; the worktree then still counts as starting until clean removes it.
  }
  yield* log("error", `worktree ${state.name}: ${detail}`, { worktree: path })
}
