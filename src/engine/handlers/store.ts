// Production's handlers of the loop's own files and the worktree loops' files (src/store/effects.ts).
import type { Handlers } from "../../effects/kernel.js"
import { storyWorktree } from "../../worktrees/parallel-file.js"
import { readSummaryFile, writeSummary, writeTranscript } from "../../store/session-files.js"
import { readWorktrees } from "../../worktrees/worktree-loops.js"
import type { HandlerContext } from "./context.js"

export function storeHandlers(ctx: HandlerContext) {
  const { directory, store } = ctx
  return {
    "verify-state": (effect) => store.verify(effect.loop, ctx.now()),
    "orphaned-loops": (effect) => {
      const running = new Set(effect.running)
      return store.orphans(ctx.now(), (id) => running.has(id))
    },
    persisted: (effect) => store.settled(effect.loop.id),
    "write-summary": (effect) => writeSummary(directory, effect.record),
    "read-summary": (effect) => readSummaryFile(directory, effect.loop.settings.summaryPath, effect.sessionID),
    "write-transcript": async (effect) => {
      await writeTranscript(directory, effect.loop.settings.summaryPath, effect.sessionID, effect.messages)
    },
    worktrees: (effect) => readWorktrees(directory, effect.launcher),
    "story-worktree": (effect) => storyWorktree(directory, effect, effect.run),
  } satisfies Partial<Handlers>
}
