// /ralph --worktree [NAME] <task> (or the setting worktree): the loop runs in its own git worktree,
// in that directory's own OpenCode instance — a session created there gets `/ralph <task>`, and
// the plugin of that instance runs the loop as any other. This session only hears of it (toasts,
// /ralph-status); the WorktreeWatch merges the branch back when the loop completes. The launch is
// a job (src/worktrees/launch-job.ts), one at a time with a parallel run's steps.
import { relative } from "node:path"
import type { Part } from "@opencode-ai/sdk"
import type { RalphContext } from "../engine/context.js"
import { locked } from "../effects/job-lock.js"
import { launchWorktree } from "../worktrees/launch-job.js"
import type { WorktreeStart, WorktreeStarted } from "../worktrees/worktree-start.js"
import { replaceText } from "./text.js"

/** Makes the worktree and starts its loop there; the command's own turn is told what happened. */
export async function startInWorktree(
  ctx: RalphContext,
  sessionID: string,
  start: WorktreeStart,
  parts: Part[],
): Promise<void> {
  const started = (await launchWorktreeLoop(ctx, sessionID, start)) ?? {
    ok: false,
    error: "the worktree loop's launch did not finish (OpenCode's log says why)",
  }
  if (!started.ok) {
    ctx.api.toast("error", "Ralph · not started", `/ralph --worktree: ${started.error}`)
    replaceText(
      parts,
      `The user typed /ralph --worktree but no Ralph loop was started: ${started.error}. Tell them exactly that ` +
        `in one or two sentences and do nothing else.`,
    )
    return
  }
  const where = relative(ctx.directory, started.path)
  replaceText(
    parts,
    `A Ralph loop now runs on this task in its own git worktree ${where} (branch ${started.state.branch}); this ` +
      `session only shows its progress. Tell the user that in one sentence and do nothing else. The task: ` +
      `${start.task}`,
  )
}

/** The launch as a job of the runner; undefined when it did not finish. */
async function launchWorktreeLoop(
  ctx: RalphContext,
  fromSession: string,
  start: WorktreeStart,
): Promise<WorktreeStarted | undefined> {
  let started: WorktreeStarted | undefined
  await ctx.runner.worktreeJobNow(
    `launch of a worktree loop from ${fromSession}`,
    locked(
      ctx.parallel.lock,
      (function* () {
        started = yield* launchWorktree(ctx, fromSession, start)
      })(),
    ),
  )
  return started
}
