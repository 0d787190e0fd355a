// The compiler checks the effect handler tables (issue 38): `npm run typecheck` compiles this file
// (tsconfig.test.json takes in test/; vitest runs only *.test.ts, so it never runs it). Each
// `@ts-expect-error` below marks a table the compiler must refuse; should the check stop working, the
// directive is unused and the typecheck fails ("Unused '@ts-expect-error' directive").
import type { Handlers } from "../../src/effects/kernel.js"
import type { HandlerContext } from "../../src/engine/handlers/context.js"
import { featureTables, joinTables, productionHandlers } from "../../src/engine/handlers/production.js"

declare const ctx: HandlerContext

// The interpreter's table, as src/engine/interpreter.ts builds it: complete.
export const complete: Handlers = productionHandlers(ctx)

// A feature's table left out: its kinds have no handler.
const { worktrees: _worktrees, ...allButAFeature } = featureTables(ctx)
// @ts-expect-error the worktree kinds (worktree-launch, …) have no handler
export const withoutAFeature: Handlers = joinTables(allButAFeature)

// One handler missing.
const { "checkpoint-restore": _restore, ...allButOne } = complete
// @ts-expect-error "checkpoint-restore" has no handler
export const oneMissing: Handlers = allButOne

// One handler with the wrong result: "messages" gives MessageWithParts[], not text.
// @ts-expect-error the handler of "messages" gives a string
export const wrongResult: Handlers = { ...complete, messages: () => "no messages" }

// The same, in a feature's table as the handlers/*.ts files write them.
export const wrongInAFeature = {
  // @ts-expect-error the handler of "is-idle" gives a string, not a boolean
  "is-idle": () => "yes",
} satisfies Partial<Handlers>

// A handler of a kind no feature declares.
export const unknownKind = {
  // @ts-expect-error there is no effect kind "teleport"
  teleport: () => undefined,
} satisfies Partial<Handlers>
