// Short builders for hand-written scenarios (replays.test.ts): `S.turn("ses_A", "fresh", { settle: true })`.
// A session is named by id, or by a Target ({ kind: "loop", i } = where the i-th live loop lives now;
// { kind: "any", i } = the i-th session in creation order: ses_A, ses_B, then the created ones).
import type { Effect } from "../../src/engine/effects.js"
import type {
  Action,
  ControlName,
  ErrorKind,
  IdleOrder,
  RalphFlags,
  ReplyKind,
  RunConfig,
  Target,
  WorktreeEvent,
} from "./sim.js"

type Where = string | Target

const at = (where: Where): Target => (typeof where === "string" ? { kind: "id", id: where } : where)

/** Where the first live loop lives now (after a fresh restart: its new session). */
export const LOOP: Target = { kind: "loop", i: 0 }

/** The i-th session in creation order (0 = ses_A, 1 = ses_B, 2 = the first one created). */
export const nth = (i: number): Target => ({ kind: "any", i })

type TurnExtra = Partial<Omit<Extract<Action, { type: "turn" }>, "type" | "at" | "reply">> & {
  edit?: boolean
  tokens?: number
  todos?: { open: number; completed: number }
}

export const S = {
  ralph: (where: Where, flags: RalphFlags = {}): Action => ({ type: "ralph", at: at(where), flags }),
  user: (where: Where): Action => ({ type: "user", at: at(where) }),
  /** "ralph: <task>" typed: the keyword starts a loop. */
  keyword: (where: Where): Action => ({ type: "user", at: at(where), keyword: true }),
  control: (where: Where, command: ControlName): Action => ({ type: "control", at: at(where), command }),
  cancel: (where: Where): Action => ({ type: "control", at: at(where), command: "cancel-ralph" }),
  pause: (where: Where): Action => ({ type: "control", at: at(where), command: "ralph-pause" }),
  resume: (where: Where): Action => ({ type: "control", at: at(where), command: "ralph-resume" }),
  /** /ralph-rollback (no arguments: back to the checkpoint before the last). */
  rollback: (where: Where): Action => ({ type: "control", at: at(where), command: "ralph-rollback" }),
  turn: (where: Where, reply: ReplyKind = "fresh", extra: TurnExtra = {}): Action => {
    const { edit = true, tokens = 0, todos, ...rest } = extra
    return {
      type: "turn",
      at: at(where),
      retry: false,
      idles: 1,
      ...rest,
      reply: { kind: reply, edit, tokens, ...(todos ? { todos } : {}) },
    }
  },
  busy: (where: Where, retry = false): Action => ({ type: "busy", at: at(where), retry }),
  idle: (where: Where, order?: IdleOrder): Action => ({ type: "idle", at: at(where), ...(order ? { order } : {}) }),
  error: (where: Where, error: ErrorKind): Action => ({ type: "error", at: at(where), error }),
  reply: (where: Where, reply: ReplyKind = "fresh", edit = true): Action => ({
    type: "reply",
    at: at(where),
    reply: { kind: reply, edit, tokens: 0 },
  }),
  compacted: (where: Where, auto = true): Action => ({ type: "compacted", at: at(where), auto }),
  ask: (where: Where, id = 0): Action => ({ type: "ask", at: at(where), id }),
  answer: (where: Where, id = 0): Action => ({ type: "answer", at: at(where), id }),
  child: (parent: Where): Action => ({ type: "create", parent: at(parent) }),
  root: (): Action => ({ type: "create" }),
  delete: (where: Where): Action => ({ type: "delete", at: at(where) }),
  advance: (ms: number): Action => ({ type: "advance", ms }),
  wake: (i = 0): Action => ({ type: "wake", i }),
  /** The pending call of the i-th runner job returns, `times` times. */
  step: (times = 1, i = 0): Action => ({ type: "step", i, times }),
  /** The i-th runner job goes on until it waits on an effect of `kind` (its `nth` one from now). */
  stepTo: (kind: Effect["kind"], nth = 1, i = 0): Action => ({ type: "step-to", i, kind, nth }),
  restart: (): Action => ({ type: "restart" }),
  settle: (): Action => ({ type: "settle" }),
  /** The i-th worktree loop still in its worktree (launch order) does `event` in its own OpenCode instance. */
  wt: (i: number, event: WorktreeEvent): Action => ({ type: "wt", i, event }),
  /** The WorktreeWatch's tick: wakes live worktree loops, starts the settling of ended ones. */
  tick: (): Action => ({ type: "tick" }),
  userCommit: (): Action => ({ type: "user-commit" }),
}

/** A plain instance config for hand-written cases: no settle delay, generous limits. */
export function config(
  settings: RunConfig["settings"] = {},
  activation: RunConfig["activation"] = "command",
): RunConfig {
  return {
    activation,
    settings: {
      settleMs: 0,
      strategy: "continue",
      maxRetries: 5,
      maxIterations: 10,
      maxCallsPerHour: 100,
      noProgressThreshold: 3,
      sameErrorThreshold: 3,
      ...settings,
    },
  }
}
