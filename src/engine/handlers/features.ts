// Production's handlers of plan files, the project memory, notifications and review
// (src/plan/effects.ts, src/memory/effects.ts, src/notify/effects.ts, src/review/effects.ts).
import type { Handlers } from "../../effects/kernel.js"
import { loopStart } from "../../loop/changed-files.js"
import { ownFolders } from "../../loop/loop.js"
import { emptyMemory, isoDate, remember } from "../../memory/memory-file.js"
import { settleStaged } from "../../memory/staging.js"
import { readPlanFile, writePlanBack } from "../../plan/plan-file.js"
import { diffSinceStart } from "../../changes/loop-diff.js"
import { sendNotification } from "../../notify/notifier.js"
import type { HandlerContext } from "./context.js"

export function planHandlers({ directory, progress }: HandlerContext) {
  return {
    "write-plan": (effect) => (effect.loop.plan ? writePlanBack(directory, effect.loop.plan) : { changed: [] }),
    "read-plan": (effect) => readPlanFile(directory, effect.path),
    "append-progress": (effect) => progress.append(effect.entry),
    "read-progress": () => progress.read(),
  } satisfies Partial<Handlers>
}

export function memoryHandlers(ctx: HandlerContext) {
  const { api, memory } = ctx
  return {
    memory: () =>
      memory.read().catch((error: unknown) => {
        api.log("warn", `could not read the project memory: ${String(error)}`)
        return emptyMemory()
      }),
    remember: async (effect) => {
      const date = isoDate(ctx.now())
      await memory.update((m) =>
        effect.items.reduce((acc, item) => remember(acc, item.section, { ...item, date }, effect.maxEntries), m),
      )
    },
    "settle-staged": async (effect) => {
      const date = isoDate(ctx.now())
      await memory.update((m) => settleStaged(m, effect.loopID, effect.completed, date, effect.maxEntries))
    },
  } satisfies Partial<Handlers>
}

export function notifyHandlers(_ctx: HandlerContext) {
  return {
    "send-notification": async (effect) => ({ problems: await sendNotification(effect.notification) }),
  } satisfies Partial<Handlers>
}

export function reviewHandlers(ctx: HandlerContext) {
  const { api, directory } = ctx
  return {
    // A failure is said to the reviewer, never read as "no change".
    "loop-diff": (effect) =>
      diffSinceStart(directory, loopStart(effect.loop), ownFolders(effect.loop)).catch((error: unknown) => ({
        unknown: error instanceof Error ? error.message : String(error),
      })),
    "default-models": () => api.defaultModels(),
    "review-ask": (effect) => {
      ctx.assertLive()
      return api.ask(effect.sessionID, effect.input)
    },
  } satisfies Partial<Handlers>
}
