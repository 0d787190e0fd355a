// The interpreter's table: every feature's handlers (the other files here) in one `Handlers`, a
// handler for each effect kind. A kind without one, or a handler with the wrong result, fails
// `npm run typecheck` here; test/unit/effect-handlers.test-d.ts holds the tables it must refuse.
import type { Handlers } from "../../effects/kernel.js"
import { checkHandlers } from "./checks.js"
import { checkpointHandlers } from "./checkpoints.js"
import { cleanHandlers } from "./clean.js"
import type { HandlerContext } from "./context.js"
import { memoryHandlers, notifyHandlers, planHandlers, reviewHandlers } from "./features.js"
import { hostHandlers } from "./host.js"
import { jobHandlers } from "./jobs.js"
import { storeHandlers } from "./store.js"
import { workTreeHandlers } from "./work-tree.js"
import { worktreeHandlers } from "./worktrees.js"

/** Each feature's table, by feature: `productionHandlers` joins them (the typecheck test leaves one out). */
export function featureTables(ctx: HandlerContext) {
  return {
    jobs: jobHandlers(ctx),
    host: hostHandlers(ctx),
    workTree: workTreeHandlers(ctx),
    checks: checkHandlers(ctx),
    checkpoints: checkpointHandlers(ctx),
    store: storeHandlers(ctx),
    plan: planHandlers(ctx),
    memory: memoryHandlers(ctx),
    notify: notifyHandlers(ctx),
    review: reviewHandlers(ctx),
    worktrees: worktreeHandlers(ctx),
    clean: cleanHandlers(ctx),
  }
}

/** One table with every handler of `tables` (the intersection of their types). */
type Joined<T> = (T[keyof T] extends infer U ? (U extends unknown ? (u: U) => void : never) : never) extends (
  u: infer I,
) => void
  ? I
  : never

/** The tables made one, in their order. Typed as having every handler of each: a `Handlers` must. */
export function joinTables<T extends Record<string, object>>(tables: T): Joined<T> {
  return Object.assign({}, ...Object.values(tables)) as Joined<T>
}

/** The interpreter's handler of each effect kind. */
export function productionHandlers(ctx: HandlerContext): Handlers {
  return joinTables(featureTables(ctx))
}
