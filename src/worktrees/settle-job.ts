// A worktree loop has ended: the main instance settles its branch. A completed loop's work is
// committed on its branch and merged back by mergeStrategy (the pure rule merge-plan.ts); a merged
// branch (or one that holds nothing) has its loop's files archived under a fresh `merged/<NAME>/`,
// the outcome written there, and only then are the worktree and branch removed — so a restart
// from any step finds either a worktree still to settle or the outcome on disk. A loop that ended
// any other way keeps its worktree and branch. The WorktreeWatch runs one of these at a time.
import type { Loop } from "../loop/loop.js"
import type { SettledWorktree } from "./parallel-file.js"
import type { WorktreeEntry } from "./worktree-loops.js"
import { mergeAction, mergeHint, type MergeAction } from "./merge-plan.js"
import type { MergeOutcome, WorktreeState } from "./worktree-state.js"
import { io, type Job } from "../effects/kernel.js"
import { log } from "../effects/jobs.js"
import { loopName } from "./names.js"
import { settleSlot } from "./slot-settle.js"

export interface EndedWorktree {
  entry: WorktreeEntry
  state: WorktreeState
  loop: Loop
}

/** Whether the loop's work is in the user's branch (or there was none): only then is its worktree removed. */
export const reachedBranch = (outcome: MergeOutcome): boolean =>
  outcome.result === "merged" || outcome.result === "fast-forwarded" || outcome.result === "nothing"

export function* settleWorktree(
  ended: EndedWorktree,
  onSettled: (settled: SettledWorktree) => void,
): Job<MergeOutcome> {
  const { entry, state, loop } = ended
  const outcome = state.slot
    ? yield* settleSlot(ended)
    : loop.stopReason === "completed"
      ? yield* mergeBack(ended)
      : yield* record(entry.path, state, kept(state, `the loop stopped (${loop.stopReason ?? "?"}) without completing`))
  yield* log("info", `worktree ${entry.name}: ${outcome.result}`, {
    worktree: entry.path,
    detail: outcome.detail,
    ...(state.slot ? { story: state.story } : {}),
  })
  const variant =
    outcome.result === "conflict" || outcome.result === "failed"
      ? "error"
      : outcome.result === "kept"
        ? "warning"
        : "success"
  yield {
    kind: "toast",
    notice: {
      variant,
      title: state.slot ? `Ralph · story ${state.story ?? loopName(state)}` : `Ralph · worktree ${entry.name}`,
      message: outcome.detail,
      ...(variant === "success" ? {} : { duration: 15_000 }),
    },
  }
  onSettled({ entry, state, loop, outcome })
  return outcome
}

function* mergeBack({ entry, state, loop }: EndedWorktree): Job<MergeOutcome> {
  const title = loop.task.split("\n")[0]?.slice(0, 72) ?? entry.name
  let merged: MergeOutcome
  try {
    yield* io({ kind: "worktree-commit", path: entry.path, message: `ralph: ${title}` })
    const action = mergeAction(yield* io({ kind: "worktree-merge-facts", state }))
    merged = yield* perform(action, state, title)
  } catch (error) {
    yield {
      kind: "log",
      level: "warn",
      message: `worktree ${entry.name}: could not merge ${state.branch}: ${String(error)}`,
      cause: error,
    }
    return yield* record(entry.path, state, {
      result: "failed",
      detail:
        `could not merge ${state.branch}: ${messageOf(error)}; the worktree and its branch are kept (` +
        `${mergeHint(state.branch)})`,
    })
  }
  if (!reachedBranch(merged)) return yield* record(entry.path, state, merged)
  // The merge is done from here on: what fails now is said as such, never as a failed merge.
  const done = merged.detail.replace(/; the worktree is removed$/, "")
  let archive: string
  try {
    archive = yield* io({ kind: "worktree-archive", name: entry.name, path: entry.path })
  } catch (error) {
    return yield* record(entry.path, state, {
      ...merged,
      detail:
        `${done}; the loop's files could not be archived (${messageOf(error)}), so the worktree is kept: ` +
        `ralph-loop clean removes it`,
    })
  }
  const removed = { ...merged, removed: true }
  yield* record(archive, state, removed)
  const removal = yield* io({ kind: "worktree-remove", name: entry.name, path: entry.path })
  if ("removed" in removal) return removed
  const outcome = {
    ...merged,
    removed: removal.folderGone,
    detail: `${done}; the worktree could not be removed (${removal.problem}): ralph-loop clean removes it`,
  }
  yield* record(archive, state, outcome)
  if (!removal.folderGone) yield* record(entry.path, state, outcome)
  return outcome
}

function* perform(action: MergeAction, state: WorktreeState, title: string): Job<MergeOutcome> {
  const base = state.base.branch ?? "HEAD"
  switch (action.kind) {
    case "fast-forward":
      yield* io({ kind: "worktree-merge", state, how: "fast-forward", message: "" })
      return { result: "fast-forwarded", detail: `${base} fast-forwarded to ${state.branch}; the worktree is removed` }
    case "merge":
      yield* io({ kind: "worktree-merge", state, how: "merge", message: `Merge ${state.branch}: ${title}` })
      return { result: "merged", detail: `${state.branch} merged into ${base}; the worktree is removed` }
    case "conflict":
      return {
        result: "conflict",
        files: [...action.files],
        detail:
          `merging ${state.branch} into ${base} would conflict in ${action.files.join(", ")}; the worktree ` +
          `and its branch are kept (${mergeHint(state.branch)})`,
      }
    case "keep":
      return kept(state, action.reason)
    case "nothing":
      return { result: "nothing", detail: `${action.reason}; the worktree is removed` }
  }
}

/** The outcome written into worktree.json in `directory` (the worktree, or its archive). */
function* record(directory: string, state: WorktreeState, outcome: MergeOutcome): Job<MergeOutcome> {
  yield* io({ kind: "worktree-record", directory, state: { ...state, merge: outcome } })
  return outcome
}

const kept = (state: WorktreeState, reason: string): MergeOutcome => ({
  result: "kept",
  detail: `${reason}; the worktree and its branch ${state.branch} are kept (${mergeHint(state.branch)})`,
})

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))
