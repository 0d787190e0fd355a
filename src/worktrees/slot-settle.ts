// A story's loop in a slot of a parallel run has ended: the main instance settles it without removing
// the slot (issue 40). Its work is committed on the story's branch whatever the end — a story that
// did not complete keeps its work there, never in the slot — and merged back when it completed; the
// loop's files are archived under the story's name (`merged/<story name>/`, the slot's instance goes
// on); the outcome is written in the archive, then in the slot, which is then free for the run's next
// story; and only then the slot leaves the branch (deleted once merged or when it holds no commit of
// its own, else kept: the outcome says which). What cannot be done retires
// the slot: it is kept as it is for the user, and the run goes on in other slots.
import { mergeAction, mergeHint } from "./merge-plan.js"
import { loopName } from "./names.js"
import type { EndedWorktree } from "./settle-job.js"
import type { MergeOutcome, WorktreeState } from "./worktree-state.js"
import { io, type Job } from "../effects/kernel.js"
import { log } from "../effects/jobs.js"

export function* settleSlot({ entry, state, loop }: EndedWorktree): Job<MergeOutcome> {
  const title = loop.task.split("\n")[0]?.slice(0, 72) ?? loopName(state)
  const completed = loop.stopReason === "completed"
  let outcome: MergeOutcome
  try {
    const message = completed ? `ralph: ${title}` : `ralph: ${title} (not completed: ${loop.stopReason ?? "?"})`
    yield* io({ kind: "worktree-commit", path: entry.path, message })
    outcome = completed
      ? yield* mergeStory(state, title)
      : yield* notCompleted(state, `the loop stopped (${loop.stopReason ?? "?"}) without completing`)
  } catch (error) {
    return yield* retire(entry.path, state, `its work could not be committed or merged: ${messageOf(error)}`)
  }
  let archive: string
  try {
    archive = yield* io({ kind: "worktree-archive", name: loopName(state), path: entry.path, keepInstance: true })
  } catch (error) {
    return yield* retire(entry.path, state, `${outcome.detail}; then ${messageOf(error)}`, outcome)
  }
  yield* io({ kind: "worktree-record", directory: archive, state: { ...state, merge: outcome } })
  yield* io({ kind: "worktree-record", directory: entry.path, state: { ...state, merge: outcome } })
  // Parked only once settled: a settle that a restart cuts off before its record is made again, and needs the
  // branch (its merge facts); a slot settled and not parked yet is parked by its next reset, or its removal.
  try {
    const parked = yield* io({ kind: "slot-park", name: entry.name, path: entry.path, branch: state.branch })
    if (!parked.branchDeleted && outcome.result !== "kept" && outcome.result !== "conflict")
      yield* log("info", `slot ${entry.name}: the branch ${state.branch} is kept`, { worktree: entry.path })
  } catch (error) {
    return yield* retire(entry.path, state, `${outcome.detail}; then ${messageOf(error)}`, outcome)
  }
  return outcome
}

function* mergeStory(state: WorktreeState, title: string): Job<MergeOutcome> {
  const base = state.base.branch ?? "HEAD"
  const action = mergeAction(yield* io({ kind: "worktree-merge-facts", state }))
  switch (action.kind) {
    case "fast-forward":
      yield* io({ kind: "worktree-merge", state, how: "fast-forward", message: "" })
      return { result: "fast-forwarded", detail: `${base} fast-forwarded to ${state.branch}` }
    case "merge":
      yield* io({ kind: "worktree-merge", state, how: "merge", message: `Merge ${state.branch}: ${title}` })
      return { result: "merged", detail: `${state.branch} merged into ${base}` }
    case "conflict":
      return {
        result: "conflict",
        files: [...action.files],
        detail:
          `merging ${state.branch} into ${base} would conflict in ${action.files.join(", ")}; its branch is kept ` +
          `(${mergeHint(state.branch)})`,
      }
    case "keep":
      return kept(state, action.reason)
    case "nothing":
      return { result: "nothing", detail: action.reason }
  }
}

/**
 * A story that did not complete: its work stays on its branch — unless it committed none, when the
 * branch holds nothing of its own and the park deletes it (its name is free for the story's next run).
 */
function* notCompleted(state: WorktreeState, reason: string): Job<MergeOutcome> {
  const { ahead } = yield* io({ kind: "worktree-merge-facts", state })
  if (ahead) return kept(state, reason)
  return {
    result: "kept",
    detail: `${reason}; it committed no work, so its branch ${state.branch} holds none and is deleted`,
  }
}

const kept = (state: WorktreeState, reason: string): MergeOutcome => ({
  result: "kept",
  detail: `${reason}; its work is on the branch ${state.branch}, which is kept (${mergeHint(state.branch)})`,
})

/** The slot takes no more stories: the outcome (or a failure) recorded with why, and the slot kept as it is. */
function* retire(path: string, state: WorktreeState, why: string, outcome?: MergeOutcome): Job<MergeOutcome> {
  const recorded: MergeOutcome = outcome ?? {
    result: "failed",
    detail: `${why}; the slot ${state.name} and the branch ${state.branch} are kept (${mergeHint(state.branch)})`,
  }
  yield* log("warn", `slot ${state.name}: retired, ${why}`, { worktree: path })
  yield* io({ kind: "worktree-record", directory: path, state: { ...state, merge: recorded, retired: why } })
  return recorded
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))
