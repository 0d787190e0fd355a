// Production's handlers of the effects that steer jobs (src/engine/effects-jobs.ts).
import type { Handlers } from "../../effects/kernel.js"
import type { HandlerContext } from "./context.js"

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const jobHandlers = (ctx: HandlerContext) =>
  ({
    sleep: (effect) => sleep(effect.ms),
    lock: (effect) => effect.lock.take(),
    reached: (effect) => ctx.reached(effect.point),
    schedule: (effect) => ctx.schedule(effect.loop, effect.until),
    spawn: (effect) => ctx.start(effect.label, effect.job),
  }) satisfies Partial<Handlers>
