// fast-check generators of event-order scenarios for the simulator in sim.ts. Weights favour what
// real runs are made of (whole model turns in a loop's session, runner calls coming back) and mix
// in everything that arrives out of order: duplicate and late idles, idles of other sessions,
// errors of every kind, compactions, permissions, child sessions, deletions, commands mid-turn.
import fc from "fast-check"
import { FEATURES, type Feature } from "../../src/config/features.js"
import type { CheckConfig } from "../../src/config/schema.js"
import type {
  Action,
  ControlName,
  ErrorKind,
  IdleOrder,
  RalphFlags,
  Reply,
  ReplyKind,
  RunConfig,
  Target,
  WorktreeEvent,
} from "./sim.js"

export const target: fc.Arbitrary<Target> = fc.oneof(
  { weight: 14, arbitrary: fc.nat({ max: 7 }).map((i): Target => ({ kind: "loop", i })) },
  { weight: 5, arbitrary: fc.nat({ max: 15 }).map((i): Target => ({ kind: "any", i })) },
  { weight: 1, arbitrary: fc.constant<Target>({ kind: "unknown" }) },
)

const errorKind: fc.Arbitrary<ErrorKind> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<ErrorKind>("aborted", "rate-limit", "transient", "overflow", "bad-request") },
  // A 401 stops the loop for good: rarer, or most runs would end there.
  { weight: 1, arbitrary: fc.constant<ErrorKind>("auth") },
)

/** Most turns end cleanly. */
const maybeError: fc.Arbitrary<ErrorKind | undefined> = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: errorKind },
)

const replyKind: fc.Arbitrary<ReplyKind> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<ReplyKind>("fresh") },
  { weight: 3, arbitrary: fc.constant<ReplyKind>("same") },
  // The promise ends the loop: most turns must not end it, or runs would be short.
  { weight: 1, arbitrary: fc.constant<ReplyKind>("promise") },
  { weight: 1, arbitrary: fc.constantFrom<ReplyKind>("empty", "interrupted", "length", "blocked", "status-complete") },
)

/** The model's todowrite: mostly none; open todos left behind drive todo-continuation. */
const todoWrite = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.record({ open: fc.integer({ min: 0, max: 2 }), completed: fc.integer({ min: 0, max: 3 }) }),
  },
)

export const reply: fc.Arbitrary<Reply> = fc
  .record({ kind: replyKind, edit: fc.boolean(), tokens: fc.constantFrom(0, 1_500), todos: todoWrite })
  .map(({ todos, ...rest }): Reply => (todos ? { ...rest, todos } : rest))

export const flags: fc.Arbitrary<RalphFlags> = fc.record(
  {
    plan: fc.boolean(),
    review: fc.boolean(),
    strategy: fc.constantFrom("recreate", "fresh", "continue"),
    maxRetries: fc.integer({ min: 0, max: 8 }),
    maxIterations: fc.integer({ min: 1, max: 9 }),
    maxCallsPerHour: fc.integer({ min: 1, max: 12 }),
    noProgressThreshold: fc.integer({ min: 1, max: 3 }),
    sameErrorThreshold: fc.integer({ min: 1, max: 3 }),
    maxTokens: fc.constantFrom(6_000, 5_000_000),
    maxMinutes: fc.constantFrom(45, 480),
    cooldownMinutes: fc.constantFrom(1, 30),
  },
  { requiredKeys: [] },
)

const ralph: fc.Arbitrary<Action> = fc
  .record({
    type: fc.constant("ralph" as const),
    at: target,
    flags,
    args: fc.option(fc.constantFrom("bad-flag" as const, "no-task" as const), { freq: 12, nil: undefined }),
  })
  .map(({ args, ...rest }): Action => (args ? { ...rest, args } : rest))

/** How a turn's end is announced: mostly as OpenCode 1.18 does, sometimes in the other order or by one event alone. */
const idleOrder: fc.Arbitrary<IdleOrder> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<IdleOrder>("status-first") },
  { weight: 1, arbitrary: fc.constantFrom<IdleOrder>("idle-first", "status-only", "idle-only") },
)

const turn: fc.Arbitrary<Action> = fc
  .record({
    at: target,
    retry: fc.boolean(),
    reply,
    error: maybeError,
    lateError: fc.boolean(),
    compact: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    idles: fc.oneof(
      { weight: 6, arbitrary: fc.constant(1) },
      { weight: 2, arbitrary: fc.constant(2) },
      { weight: 1, arbitrary: fc.constant(3) },
    ),
    settle: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    idleOrder,
  })
  .map(({ error, ...rest }): Action => ({ type: "turn", ...rest, ...(error ? { error } : {}) }))

const control: fc.Arbitrary<Action> = fc.record({
  type: fc.constant("control" as const),
  at: target,
  command: fc.oneof(
    { weight: 1, arbitrary: fc.constant<ControlName>("cancel-ralph") },
    { weight: 3, arbitrary: fc.constant<ControlName>("ralph-pause") },
    { weight: 4, arbitrary: fc.constant<ControlName>("ralph-resume") },
    { weight: 1, arbitrary: fc.constantFrom<ControlName>("ralph-status", "ralph-hint") },
    // A rollback: its steps interleave with wakes, turns and other loops (invariant 23).
    { weight: 2, arbitrary: fc.constant<ControlName>("ralph-rollback") },
  ),
})

/** Deleting mostly hits other sessions: a deleted loop session ends the run's interesting part. */
const deleteTarget: fc.Arbitrary<Target> = fc.oneof(
  { weight: 1, arbitrary: fc.nat({ max: 7 }).map((i): Target => ({ kind: "loop", i })) },
  { weight: 3, arbitrary: fc.nat({ max: 15 }).map((i): Target => ({ kind: "any", i })) },
)

export const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 25, arbitrary: turn },
  {
    weight: 15,
    arbitrary: fc.record({
      type: fc.constant("step" as const),
      i: fc.nat({ max: 3 }),
      times: fc.integer({ min: 1, max: 6 }),
    }),
  },
  { weight: 8, arbitrary: fc.constant<Action>({ type: "settle" }) },
  { weight: 4, arbitrary: fc.record({ type: fc.constant("busy" as const), at: target, retry: fc.boolean() }) },
  { weight: 6, arbitrary: fc.record({ type: fc.constant("idle" as const), at: target, order: idleOrder }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant("error" as const), at: target, error: errorKind }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant("reply" as const), at: target, reply }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant("compacted" as const), at: target, auto: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("ask" as const),
      at: target,
      id: fc.nat({ max: 1 }),
      question: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant("answer" as const),
      at: target,
      id: fc.nat({ max: 1 }),
      question: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ type: fc.constant("user" as const), at: target }) },
  // "ralph: <task>" typed: the keyword starts a loop as /ralph would.
  { weight: 1, arbitrary: fc.record({ type: fc.constant("user" as const), at: target, keyword: fc.constant(true) }) },
  { weight: 5, arbitrary: control },
  { weight: 1, arbitrary: ralph },
  {
    weight: 2,
    arbitrary: fc
      .record({ type: fc.constant("create" as const), parent: fc.option(target, { nil: undefined }) })
      .map(({ parent }): Action => (parent ? { type: "create", parent } : { type: "create" })),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("delete" as const), at: deleteTarget }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant("advance" as const),
      ms: fc.constantFrom(200, 5_000, 60_000, 30 * 60_000),
    }),
  },
  { weight: 5, arbitrary: fc.record({ type: fc.constant("wake" as const), i: fc.nat({ max: 3 }) }) },
  // OpenCode killed and restarted: rare, or most runs would be recoveries.
  { weight: 1, arbitrary: fc.constant<Action>({ type: "restart" }) },
  // The owner dies and a second, open OpenCode takes its loops back at a heartbeat; a heartbeat alone.
  { weight: 1, arbitrary: fc.constant<Action>({ type: "owner-dies" }) },
  { weight: 1, arbitrary: fc.constant<Action>({ type: "beat" }) },
)

export const runConfig: fc.Arbitrary<RunConfig> = fc.record({
  activation: fc.oneof(
    { weight: 4, arbitrary: fc.constant("command" as const) },
    { weight: 1, arbitrary: fc.constant("always" as const) },
  ),
  // A quarter of the runs: some edits skip a test, and the guard refuses those claims (issue 39).
  weakens: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  settings: fc.record({
    settleMs: fc.constantFrom(0, 150),
    autoRestart: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    strategy: fc.constantFrom("recreate", "fresh", "continue"),
    maxRetries: fc.oneof(
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }) },
      { weight: 3, arbitrary: fc.integer({ min: 3, max: 8 }) },
    ),
    maxIterations: fc.oneof(
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
      { weight: 3, arbitrary: fc.integer({ min: 4, max: 9 }) },
    ),
    maxCallsPerHour: fc.integer({ min: 2, max: 12 }),
    noProgressThreshold: fc.integer({ min: 1, max: 3 }),
    sameErrorThreshold: fc.integer({ min: 1, max: 3 }),
    cooldownMinutes: fc.constantFrom(1, 30),
    statusBlock: fc.boolean(),
    exitGate: fc.constantFrom("promise", "either", "dual"),
    // A check that fails while the work tree is in an odd state: gotchas, feedback, circular fixes.
    checks: fc.oneof(
      { weight: 3, arbitrary: fc.constant<CheckConfig[]>([]) },
      { weight: 1, arbitrary: fc.constant<CheckConfig[]>([{ name: "test", kind: "test", command: "sim test" }]) },
      // A typecheck: auto-continue's fast check (and a loop's check too).
      {
        weight: 1,
        arbitrary: fc.constant<CheckConfig[]>([{ name: "types", kind: "typecheck", command: "sim typecheck" }]),
      },
    ),
    checkAfter: fc.constantFrom("claim", "iteration"),
    resumeOnStart: fc.oneof(
      { weight: 3, arbitrary: fc.constant("auto" as const) },
      { weight: 1, arbitrary: fc.constant("ask" as const) },
    ),
    // The continuations outside /ralph: each feature on or off, small limits so they are reached.
    disabledFeatures: fc.subarray([...FEATURES]),
    autoContinue: fc.boolean(),
    autoContinueMax: fc.integer({ min: 1, max: 3 }),
    todoContinuationMax: fc.integer({ min: 1, max: 3 }),
    todoContinuationDelaySeconds: fc.constantFrom(0, 3),
  }),
})

/** A scenario: a first /ralph in a root session, then anything. */
export const scenario = (maxLength: number): fc.Arbitrary<Action[]> =>
  fc
    .tuple(
      fc.record({
        type: fc.constant("ralph" as const),
        at: fc.constantFrom<Target>({ kind: "id", id: "ses_A" }, { kind: "id", id: "ses_B" }),
        flags,
      }),
      fc.array(action, { minLength: 1, maxLength, size: "max" }),
    )
    .map(([first, rest]): Action[] => [first, ...rest])

// ---------------------------------------------------------------------------------------------
// Continuations outside /ralph: scenarios around one session without a loop (ses_B) that stops
// with open todos, where the countdown meets the user typing, Esc, commands, requests, a loop
// starting (/ralph or the keyword), more turns and OpenCode restarting.

const PLAIN: Target = { kind: "id", id: "ses_B" }
const plainOrOther: fc.Arbitrary<Target> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(PLAIN) },
  { weight: 1, arbitrary: fc.nat({ max: 5 }).map((i): Target => ({ kind: "any", i })) },
)

const plainTurn: fc.Arbitrary<Action> = fc
  .record({
    at: plainOrOther,
    retry: fc.constant(false),
    reply,
    error: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: errorKind }),
    idles: fc.oneof({ weight: 6, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
    settle: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  })
  .map(({ error, ...rest }): Action => ({ type: "turn", ...rest, ...(error ? { error } : {}) }))

const plainAction: fc.Arbitrary<Action> = fc.oneof(
  { weight: 8, arbitrary: plainTurn },
  {
    weight: 10,
    arbitrary: fc.record({
      type: fc.constant("step" as const),
      i: fc.nat({ max: 3 }),
      times: fc.integer({ min: 1, max: 6 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant<Action>({ type: "settle" }) },
  // The user types; presses Esc on the idle session (OpenCode re-publishes idle); the session works again.
  { weight: 3, arbitrary: fc.record({ type: fc.constant("user" as const), at: plainOrOther }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant("idle" as const), at: plainOrOther }) },
  {
    weight: 2,
    arbitrary: fc.record({ type: fc.constant("busy" as const), at: plainOrOther, retry: fc.constant(false) }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("error" as const), at: plainOrOther, error: errorKind }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("ask" as const),
      at: plainOrOther,
      id: fc.nat({ max: 1 }),
      question: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("answer" as const),
      at: plainOrOther,
      id: fc.nat({ max: 1 }),
      question: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant("control" as const),
      at: plainOrOther,
      command: fc.constantFrom<ControlName>("cancel-ralph", "ralph-status", "cancel-ralph"),
    }),
  },
  // A loop starts in the session: by /ralph or by the keyword.
  { weight: 1, arbitrary: fc.record({ type: fc.constant("ralph" as const), at: plainOrOther, flags }) },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant("user" as const), at: plainOrOther, keyword: fc.constant(true) }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("create" as const), parent: fc.constant(PLAIN) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("advance" as const), ms: fc.constantFrom(1_000, 5_000) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("wake" as const), i: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant<Action>({ type: "restart" }) },
)

/** A session without a loop: the user writes, the model leaves open todos; then anything. */
export const plainScenario = (maxLength: number): fc.Arbitrary<Action[]> =>
  fc
    .tuple(
      fc.record({
        kind: replyKind,
        edit: fc.boolean(),
        tokens: fc.constant(0),
        todos: fc.record({ open: fc.integer({ min: 1, max: 2 }), completed: fc.nat({ max: 1 }) }),
      }),
      fc.array(plainAction, { minLength: 1, maxLength, size: "max" }),
    )
    .map(([first, rest]): Action[] => [
      { type: "user", at: PLAIN },
      { type: "turn", at: PLAIN, retry: false, reply: first, idles: 1 },
      ...rest,
    ])

/** The instance config for those: todo-continuation on mostly, auto-continue on half the time. */
export const plainConfig: fc.Arbitrary<RunConfig> = runConfig.chain((config) =>
  fc
    .record({
      disabledFeatures: fc.oneof(
        { weight: 4, arbitrary: fc.constant<Feature[]>([]) },
        { weight: 1, arbitrary: fc.subarray([...FEATURES]) },
      ),
      checks: fc.constantFrom<CheckConfig[]>([], [{ name: "types", kind: "typecheck", command: "sim typecheck" }]),
    })
    .map((more): RunConfig => ({ ...config, settings: { ...config.settings, ...more } })),
)

// ---------------------------------------------------------------------------------------------
// Worktree loops and parallel plan runs: a loop in the project's own tree (its timers, its user)
// beside a parallel run of the plan's stories, whose worktree loops start, edit, complete or stop in
// their own OpenCode instances while the watch settles them (commit, merge, archive, remove), the
// run marks stories done and starts dependents, the user commits on their branch, and OpenCode
// is killed between any two of those steps.

const worktreeEvent: fc.Arbitrary<WorktreeEvent> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<WorktreeEvent>("start") },
  { weight: 3, arbitrary: fc.constant<WorktreeEvent>("edit") },
  { weight: 1, arbitrary: fc.constant<WorktreeEvent>("conflicting-edit") },
  { weight: 4, arbitrary: fc.constant<WorktreeEvent>("complete") },
  { weight: 1, arbitrary: fc.constantFrom<WorktreeEvent>("stop", "refuse") },
  { weight: 3, arbitrary: fc.constant<WorktreeEvent>("end-files") },
)

const parallelRalph = (at: fc.Arbitrary<Target>): fc.Arbitrary<Action> =>
  fc
    .record({ at, n: fc.integer({ min: 1, max: 3 }) })
    .map(({ at, n }): Action => ({ type: "ralph", at, flags: { parallel: n } }))

const worktreeAction: fc.Arbitrary<Action> = fc.oneof(
  { weight: 30, arbitrary: action },
  {
    weight: 14,
    arbitrary: fc.record({ type: fc.constant("wt" as const), i: fc.nat({ max: 3 }), event: worktreeEvent }),
  },
  { weight: 6, arbitrary: fc.constant<Action>({ type: "tick" }) },
  { weight: 1, arbitrary: fc.constant<Action>({ type: "user-commit" }) },
  { weight: 2, arbitrary: fc.constant<Action>({ type: "restart" }) },
  { weight: 1, arbitrary: parallelRalph(target) },
  // /cancel-ralph where the run was started (ses_B, no loop of its own): the run is cancelled.
  {
    weight: 1,
    arbitrary: fc.constant<Action>({ type: "control", at: { kind: "id", id: "ses_B" }, command: "cancel-ralph" }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("ralph" as const),
      at: target,
      flags: fc.constant<RalphFlags>({ worktree: true }),
    }),
  },
)

/** A loop in ses_A, a parallel run of the plan from ses_B, then anything. */
export const worktreeScenario = (maxLength: number): fc.Arbitrary<Action[]> =>
  fc
    .tuple(
      flags,
      parallelRalph(fc.constant<Target>({ kind: "id", id: "ses_B" })),
      fc.array(worktreeAction, { minLength: 1, maxLength, size: "max" }),
    )
    .map(([first, parallel, rest]): Action[] => [
      { type: "ralph", at: { kind: "id", id: "ses_A" }, flags: first },
      parallel,
      ...rest,
    ])

/** The instance config for those: few places for worktree loops, every merge strategy. */
export const worktreeConfig: fc.Arbitrary<RunConfig> = runConfig.chain((config) =>
  fc
    .record({
      maxParallelLoops: fc.integer({ min: 1, max: 3 }),
      mergeStrategy: fc.constantFrom("ff-or-branch" as const, "merge" as const, "none" as const),
    })
    .map((more): RunConfig => ({ ...config, settings: { ...config.settings, ...more } })),
)
