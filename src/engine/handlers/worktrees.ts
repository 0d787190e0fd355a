// Production's handlers of worktree loops and parallel plan runs (src/worktrees/effects.ts).
import { existsSync } from "node:fs"
import type { Handlers } from "../../effects/kernel.js"
import { readParallelRun, writeParallelRun } from "../../worktrees/parallel-file.js"
import { writePlanBack } from "../../plan/plan-file.js"
import { writeWorktreeState } from "../../worktrees/worktree-file.js"
import { archiveWorktreeFiles } from "../../worktrees/worktree-archive.js"
import {
  commitWork,
  fastForward,
  mergeBranch,
  mergeFacts,
  reclaimWorktree,
  removeWorktree,
} from "../../worktrees/worktree-git.js"
import { makeWorktreeLoop } from "../../worktrees/worktree-launch.js"
import { parkSlot, removeSlot } from "../../worktrees/slot-git.js"
import { resetSlotForStory } from "../../worktrees/slot-launch.js"
import type { HandlerContext } from "./context.js"

/** A removal's outcome: done, or what failed and whether the folder is gone all the same. */
const removal = (path: string, removing: Promise<unknown>) =>
  removing.then(
    () => ({ removed: true as const }),
    (error: unknown) => ({
      problem: error instanceof Error ? error.message : String(error),
      folderGone: !existsSync(path),
    }),
  )

export function worktreeHandlers(ctx: HandlerContext) {
  const { api, directory } = ctx
  return {
    "worktree-launch": (effect) => makeWorktreeLoop(directory, api, effect),
    "worktree-command": (effect) =>
      api.runCommand(effect.path, effect.sessionID, "ralph", `-- ${effect.task}`).then(
        () => ({}),
        (error: unknown) => ({ failure: String(error) }),
      ),
    "worktree-commit": (effect) => commitWork(effect.path, effect.message),
    "worktree-merge-facts": (effect) => mergeFacts(effect.state, effect.state.mergeStrategy),
    "worktree-merge": (effect) =>
      effect.how === "fast-forward"
        ? fastForward(directory, effect.state.branch)
        : mergeBranch(directory, effect.state.branch, effect.message),
    "worktree-archive": async (effect) => {
      if (!effect.keepInstance) await api.closeInstance(effect.path).catch(() => undefined)
      return archiveWorktreeFiles(directory, effect.name, effect.path, ctx.now())
    },
    "worktree-remove": (effect) => removal(effect.path, removeWorktree(directory, effect.name)),
    "slot-reset": (effect) => resetSlotForStory(directory, api, effect),
    "slot-park": (effect) => parkSlot(directory, effect.path, effect.branch),
    "slot-cancel": (effect) => ctx.cancelLoopIn(effect.path, effect.via),
    "slot-remove": async (effect) => {
      await api.closeInstance(effect.path).catch(() => undefined)
      return removal(effect.path, removeSlot(directory, effect.name, effect.path))
    },
    "worktree-wake": (effect) =>
      api.listSessions(effect.path).then(
        () => undefined,
        (error: unknown) => api.log("warn", `could not wake the worktree loop in ${effect.path}: ${String(error)}`),
      ),
    "worktree-reclaim": (effect) => reclaimWorktree(directory, effect.name, effect.base, effect.branch),
    "worktree-record": (effect) => writeWorktreeState(effect.directory, effect.state),
    "parallel-run": () => readParallelRun(directory),
    "parallel-record": (effect) => writeParallelRun(directory, effect.run),
    "parallel-mark": (effect) =>
      writePlanBack(directory, effect.plan).catch((error: unknown) => ({ problem: String(error) })),
  } satisfies Partial<Handlers>
}
