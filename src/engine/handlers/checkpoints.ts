// Production's handlers of checkpoints and rollback (src/checkpoints/effects.ts).
import type { Handlers } from "../../effects/kernel.js"
import {
  listCheckpoints,
  makeCheckpoint,
  restoreCheckpoint,
  saveBeforeRollback,
} from "../../checkpoints/checkpoint-git.js"
import type { HandlerContext } from "./context.js"

export function checkpointHandlers({ directory }: HandlerContext) {
  return {
    checkpoint: (effect) =>
      makeCheckpoint(directory, effect.loop.id, effect.iteration).then(
        (made) => (made ? { made } : { notGit: true as const }),
        (error: unknown) => ({ problem: String(error) }),
      ),
    checkpoints: (effect) => listCheckpoints(directory, effect.loop.id),
    "checkpoint-save": (effect) => saveBeforeRollback(directory, effect.loop.id),
    "checkpoint-restore": (effect) => restoreCheckpoint(directory, effect.present.commit, effect.target.commit),
  } satisfies Partial<Handlers>
}
