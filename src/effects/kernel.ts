// The effect kernel. A job of the loop is a generator: it yields an effect, and gets its result back
// (or its error thrown in) when the effect is done. Production resolves effects with a table of
// handlers (src/engine/interpreter.ts); the event-order fuzzer resolves the same jobs' effects with
// a table of its own (test/fuzz/sim.ts), and can put any event between two of them.
//
// `Effects` is empty here: each feature declares its own effect kinds in its `effects.ts`, by module
// augmentation of this interface (docs/architecture.md). Both tables are typed `Handlers`,
// so a kind without a handler, or a handler with the wrong result, fails `npm run typecheck`.
// This file imports nothing from the rest of src/.

/** Each effect kind with what it asks for and what it gives back; filled in by the features. */
/** @public (each feature extends it by declaration merging; see the top of this file) */
// biome-ignore lint/suspicious/noEmptyInterface: the features add to it by declaration merging.
export interface Effects {}

export type EffectKind = keyof Effects

/** The effect of kind `K`: its kind and what it asks for. */
export type EffectOf<K extends EffectKind> = { kind: K } & Effects[K]["ask"]

/** Several effects at once (production runs them side by side). */
type AllEffect = { kind: "all"; effects: readonly Effect[] }

export type Effect = { [K in EffectKind]: EffectOf<K> }[EffectKind] | AllEffect

export type ResultOf<E extends Effect> = E extends { kind: EffectKind } ? Effects[E["kind"]]["result"] : unknown[]

export type Job<T = void> = Generator<Effect, T, unknown>

type Result<K extends EffectKind> = Effects[K]["result"]

/** What resolves an effect of kind `K`: its result, at once or later. */
/** @public */
export type Handler<K extends EffectKind> = (effect: EffectOf<K>) => Promise<Result<K>> | Result<K>

/** A handler for each kind of `K` (all kinds: a complete table, as the interpreter and the simulator build). */
export type Handlers<K extends EffectKind = EffectKind> = { [P in K]: Handler<P> }

/** The handler of `effect`'s kind in `handlers`, called. */
export function handle<K extends EffectKind>(handlers: Handlers, effect: EffectOf<K>): Promise<Result<K>> | Result<K> {
  const handler: Handler<K> = handlers[effect.kind]
  return handler(effect)
}

/** `const messages = yield* io({ kind: "messages", sessionID })` */
export function* io<E extends Effect>(effect: E): Job<ResultOf<E>> {
  return (yield effect) as ResultOf<E>
}

type Results<T extends readonly Effect[]> = { -readonly [I in keyof T]: T[I] extends Effect ? ResultOf<T[I]> : never }

/** Several effects at once (production runs them side by side); their results in order. */
export function* all<const T extends readonly Effect[]>(...effects: T): Job<Results<T>> {
  return (yield { kind: "all", effects }) as Results<T>
}
