// The worktree loops and a parallel plan run, as /ralph-status and `ralph-loop worktrees` show
// them: one line per worktree — name, branch, how its loop is doing, what its merge did. Pure.
import { maxIterations, type Loop } from "../loop/loop.js"
import type { ParallelRun } from "./parallel.js"
import type { WorktreeState } from "./worktree-state.js"

export interface WorktreeView {
  name: string
  state: WorktreeState | undefined
  loop: Loop | undefined
}

const shorten = (text: string, max: number) => {
  const line = text.split("\n")[0] ?? ""
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function loopPart(loop: Loop | undefined): string {
  if (!loop) return "starting"
  if (loop.phase === "stopped")
    return `${loop.stopReason ?? "stopped"} after ${loop.iteration} iteration${loop.iteration === 1 ? "" : "s"}`
  return `${loop.phase} · iteration ${loop.iteration} of ${maxIterations(loop)}`
}

function worktreeLine({ name, state, loop }: WorktreeView): string {
  const merge = state?.merge
    ? ` · ${state.merge.result}${state.merge.files?.length ? ` (${state.merge.files.join(", ")})` : ""}`
    : ""
  const story = state?.story ? ` · ${state.slot ? "slot of the run, " : ""}story ${state.story}` : ""
  const retired = state?.retired ? ` · retired: ${state.retired}` : ""
  return (
    `- ${name} · ${state?.branch ?? "no worktree.json"} · ` +
    `${loopPart(loop)}${merge}${story}${retired}${loop ? ` · ${shorten(loop.task, 40)}` : ""}`
  )
}

export function worktreeLines(views: readonly WorktreeView[]): string[] {
  return views.length ? ["Worktree loops (.opencode/ralph-loop/worktrees/):", ...views.map(worktreeLine)] : []
}

export function parallelLines(run: ParallelRun | undefined): string[] {
  if (!run) return []
  const running = run.running.map((r) => r.story)
  const slots = run.running.map((r) => `${r.story} (${r.worktree})`)
  const failed = run.failed.map((f) => [f.story, f.reason] as const)
  const settled = new Set([...running, ...failed.map(([id]) => id), ...run.plan.done.map((d) => d.id)])
  const waiting = run.plan.stories.filter((s) => !settled.has(s.id)).map((s) => s.id)
  return [
    `Parallel run of ${run.plan.file}: ${run.plan.done.length} of ${run.plan.stories.length} stories done, up to ` +
      `${run.parallel} at once.`,
    ...(run.cancelled ? [`  cancelled (${run.cancelled}): no story starts any more`] : []),
    ...(running.length ? [`  running: ${slots.join(", ")}`] : []),
    ...(waiting.length ? [`  waiting: ${waiting.join(", ")}`] : []),
    ...(failed.length ? [`  not merged: ${failed.map(([id, why]) => `${id} (${why})`).join("; ")}`] : []),
  ]
}
