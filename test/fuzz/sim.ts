// The event-order simulator: a deterministic stand-in for OpenCode (sessions, their messages, the
// events it publishes, the order it calls the plugin's hooks in) around the plugin's real code —
// the real hooks (event, chat.message, command.execute.before, compaction autocontinue), the real
// LoopManager, the real pure decision core, and the real LoopRunner with its real jobs
// (src/actions/jobs/). A job yields effects; here each effect is resolved against the simulated
// OpenCode whenever the scenario says so (`step`), so any event, command or other job can come
// between two steps of production code. Only the parts of OpenCode the plugin can see are
// simulated: statuses, idles, errors, messages (read with the real `readTurn`), compactions,
// permissions, session creation and deletion, the loop's state on disk (through the real state
// codec), checks, a fake clock — and OpenCode being killed and restarted (`restart`), after which
// the real recovery jobs take the loops back.
//
// A scenario is a list of `Action`s. The simulator plays them one by one, and after every action
// and every runner step it checks the invariants below; a broken one throws `InvariantError` with
// the trace of the run so far.
//
//  1  at most one prompt per busy→idle transition: a loop prompts only after a busy→idle of the
//     session it lives in, with the busy after its previous prompt and not the plugin's own
//     summarize, and one transition answers one prompt (also across loops)
//  2  a prompt goes only to a session OpenCode knows, that has no parent, and in which the
//     prompting loop lives (manager.get) in phase running
//  3  a loop that reached `stopped` never prompts again and never leaves `stopped`
//  4  iteration and retries never go backwards — but for a stop that takes back, by one, an
//     iteration whose prompt never went out; the current task's retries (a plan's: its current
//     story's) ≤ maxRetries; iteration ≤ the limit in force (limits.ts: a plan's maxIterations,
//     another's min(maxRetries + 1, maxIterations))
//  5  at the end (every runner job run to completion) every loop is in a resting phase (running,
//     waiting, paused, stopped), a waiting loop has a timer, a stopped loop has a stopReason
//  6  the manager maps every live loop under its current session and nothing else: no stopped or
//     duplicated loop in `all()`, no live loop missing from it
//  7  `session.deleted` for the session a live loop lives in stops that loop
//  8  a paused loop stays paused, and sends nothing, until the user resumes it (a message or
//     /ralph-resume) or it stops
//  9  the runner never deletes (retires) a session in which a live loop lives (when it sends the call)
// 10  the plugin never prompts over the user: no prompt answers a turn end after which the user
//     wrote in the prompted session
// 11  after a restart of OpenCode, every loop that was active is taken back (or closed) by recovery
// 12  production code never fails but for a failed OpenCode call (anything else it catches is a bug)
// 13  a plan loop's stories are marked done only by a decision on a turn that claimed completion
//     and whose checks (the loop's and the story's) all passed, one story per decision, the next
//     one by priority and dependsOn; a story once done stays done (also across restarts); a plan
//     loop completes only with every story done
// 14  a session is retitled as ended only while no live loop lives in it
//
// The continuations outside /ralph (todo-continuation, auto-continue) prompt sessions without a loop:
// 15  a continuation goes only to a live top-level session in which no loop lives (or is about to),
//     for a feature that is on, and (todo) only while the session has open todos
// 16  it answers a busy→idle transition of that session that no prompt answered yet, that ended
//     without an error, and after which the user did not write nor press Esc (an idle with no busy
//     before it); and no permission or question waits there
// 17  at most todoContinuationMax todo continuations in a row without a todo completed (or the user
//     writing, or the list emptied); at most autoContinueMax auto-continuations per user message
// 18  after /cancel-ralph in a session, no continuation there until the user writes
// 19  a feature that is off does nothing at all: no todo read for todo-continuation, no check for auto-continue
// 21  a usage limit is a wait, not an error: the decision that waits for it leaves the breaker as it
//     was and counts no retry
// 20  a loop's end is notified once (notify.*): at the end, one "ended" notification per stopped loop,
//     with its stop reason (fewer only when OpenCode was killed before it went out), none for a live loop
//
// Review (a loop's review sessions, `Ralph review · …`):
// 22  no loop ever lives in a review session, no prompt nor continuation ever goes to one, and each is
//     deleted once its review is over
//
// Rollback (/ralph-rollback, a job of the runner):
// 23  a rollback writes the work tree (saves the present state, restores a checkpoint) only while its
//     loop is paused or ended, with no wake-up timer, and while no other loop of the project is live
//     (running, deciding, waiting, restarting); no prompt goes out while a rollback of the loop
//     writes, and the rolled-back loop stays paused until the user resumes it (8)
//
// Worktree loops and parallel plan runs (the main instance's jobs: settle, launch, a run's steps).
// The worktree loops themselves run in other OpenCode instances: here their files (worktree.json,
// their loop's state file) are written by the simulator as those instances would, and git is a
// model of the user's branch and each loop's branch; every other file is the real one.
// 24 a story is marked done in the plan file only once its worktree's branch has reached the user's
//    branch (merged, fast-forwarded, or nothing to merge), never twice in the run's record and never
//    unmarked; at the end, every story whose worktree reached the user's branch is marked (also when
//    OpenCode was killed between the merge and the plan write)
// 25 a story's worktree loop starts only once every story it depends on is marked done in the plan file
// 26 a worktree (and its branch) is removed only once its branch holds nothing the user's lacks, with
//    no uncommitted work left in it
// 27 the live worktree loops (starting or running, not settled) never outnumber maxParallelLoops
// 28 an ended worktree loop is archived (then removed) only once its instance wrote its end files (its
//    report), or END_FILES_WAIT_MS after it stopped: never with its instance still writing in it
// 29 a loop completes only on a claim the guard let through: with guard "refuse", its evidence holds
//    no finding that stands, unless the replay of the start's tests proved it, and no replay that failed
//    (sim-guard.ts makes some claims' changes skip a test, and the replay fail then)
// 31 a completion is verified only when its replay passed on the replay tree or was not needed
//
// Owners (several OpenCode processes on one project; issue 47):
// 30 two engines never run one loop: a loop is taken back (at a start, or at another OpenCode's
//    heartbeat after its owner died) only while no live instance runs it
import { WorktreeWatch } from "../../src/worktrees/worktree-watch.js"
import { END_FILES_WAIT_MS } from "../../src/worktrees/lifecycle.js"
import { ParallelPlan } from "../../src/worktrees/parallel-plan.js"
import { archiveWorktreeFiles } from "../../src/worktrees/worktree-archive.js"
import { cleanProject } from "../../src/clean/clean-project.js"
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { readParallelRun, storyWorktree, writeParallelRun } from "../../src/worktrees/parallel-file.js"
import { writePlanBack } from "../../src/plan/plan-file.js"
import { readWorktrees } from "../../src/worktrees/worktree-loops.js"
import { readWorktreeState, writeWorktreeState } from "../../src/worktrees/worktree-file.js"
import { htmlReportFile } from "../../src/store/report.js"
import { simGuardRead, simReplay } from "./sim-guard.js"
import { guardMode } from "../../src/config/guard-setting.js"
import { replayVerdict } from "../../src/evidence/replay-record.js"
import { stands } from "../../src/evidence/record.js"
import { SimCallError, SimHost, type SimSession, type SimWorld } from "./sim-host.js"
import type { WorktreeStarted } from "../../src/worktrees/worktree-start.js"
import { STATE_DIR } from "../../src/project/own-files.js"
import { worktreePath } from "../../src/worktrees/names.js"
import type { MergeOutcome, WorktreeState } from "../../src/worktrees/worktree-state.js"
import { newLoop } from "../../src/loop/loop.js"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { emptyMemory, isoDate, remember } from "../../src/memory/memory-file.js"
import { settleStaged } from "../../src/memory/staging.js"
import type { ProjectMemory } from "../../src/memory/memory-store.js"
import { handle, io, type Effect, type Handlers, type Job } from "../../src/effects/kernel.js"
import { INSTANT } from "../../src/effects/jobs.js"
import type { AssistantMessage, Event, Part, TextPart, Todo, UserMessage } from "@opencode-ai/sdk"
import type { NotificationPayload } from "../../src/notify/notification.js"
import { LoopRunner, type JobHost } from "../../src/engine/runner.js"
import { hostHandlers } from "../../src/engine/handlers/host.js"
import { CONTROL_MARKER } from "../../src/host/commands.js"
import type { LiveSettings } from "../../src/config/live-settings.js"
import { DEFAULT_SETTINGS, type Settings, type Strategy } from "../../src/config/schema.js"
import type { RalphContext } from "../../src/engine/context.js"
import { ControlTurns } from "../../src/engine/control-turns.js"
import { chatMessageHook } from "../../src/hooks/chat-message.js"
import { commandHook } from "../../src/hooks/command-execute.js"
import { compactionAutocontinueHook } from "../../src/hooks/compaction-autocontinue.js"
import { eventHook } from "../../src/hooks/event.js"
import { maxIterations, type Loop, type LoopPhase } from "../../src/loop/loop.js"
import { taskRetries } from "../../src/loop/limits.js"
import { LoopManager } from "../../src/loop/manager.js"
import { keepsTimer } from "../../src/loop/wake.js"
import type { RuntimeEvent } from "../../src/host/events.js"
import type { MessageWithParts } from "../../src/loop/read-turn.js"
import { parseStateText, stateText } from "../../src/store/loop-store.js"
import { parseSavedLoop } from "../../src/store/saved-loops.js"
import type { CheckResult } from "../../src/checks/diagnostics.js"
import {
  checkpointNumber,
  checkpointRef,
  nextCheckpointNumber,
  type Checkpoint,
} from "../../src/checkpoints/checkpoints.js"
import type { CheckKind } from "../../src/config/schema.js"
import { featureOn } from "../../src/config/features.js"
import { ContinuationWatch } from "../../src/continuations/watch.js"
import { checksFor, nextStory, type PlanState } from "../../src/plan/plan.js"
import { PlanRequests } from "../../src/plan/requests.js"
import type { ProgressEntry } from "../../src/store/progress-entry.js"
import type { MergeFacts } from "../../src/worktrees/merge-plan.js"
import { reachedBranch } from "../../src/worktrees/settle-job.js"

// ---------------------------------------------------------------------------------------------
// Scenarios

/** Which session an action is about. `loop`: where the i-th live loop lives now (the common case). */
export type Target =
  | { kind: "loop"; i: number }
  | { kind: "any"; i: number }
  | { kind: "unknown" }
  | { kind: "id"; id: string }

export type ErrorKind = "aborted" | "rate-limit" | "transient" | "auth" | "overflow" | "bad-request"

export type ReplyKind =
  | "fresh"
  | "same"
  | "promise"
  | "empty"
  | "interrupted"
  | "length"
  | "blocked"
  | "status-complete"

export interface Reply {
  kind: ReplyKind
  /** The turn changed the work tree (progress for the breaker). */
  edit: boolean
  tokens: number
  /** The model wrote its todo list (OpenCode's todowrite): this many open and completed. */
  todos?: { open: number; completed: number }
}

/**
 * How the end of a turn is announced: OpenCode 1.18 publishes `session.status {idle}` then
 * `session.idle`; the other orders (and either alone) are what a later or earlier version may do.
 */
export type IdleOrder = "status-first" | "idle-first" | "status-only" | "idle-only"

export type ControlName =
  | "cancel-ralph"
  | "ralph-pause"
  | "ralph-resume"
  | "ralph-status"
  | "ralph-hint"
  | "ralph-rollback"

/** /ralph flags (see src/commands/ralph-args.ts). */
export interface RalphFlags {
  /** `--prd`: a plan loop over SIM_PLAN. */
  plan?: boolean
  /** `--review`: a claim the checks pass goes to a review session first. */
  review?: boolean
  strategy?: Strategy
  maxRetries?: number
  maxIterations?: number
  maxCallsPerHour?: number
  noProgressThreshold?: number
  sameErrorThreshold?: number
  maxTokens?: number
  maxMinutes?: number
  cooldownMinutes?: number
  /** `--worktree`: the loop runs in a worktree (another OpenCode instance). */
  worktree?: boolean
  /** `--prd --parallel N`: the plan's stories run as worktree loops, N at once. */
  parallel?: number
}

/** What a worktree loop (in its own OpenCode instance) does next. */
export type WorktreeEvent = "start" | "edit" | "conflicting-edit" | "complete" | "stop" | "refuse" | "end-files"

export type Action =
  /** `/ralph <task> [flags]` (`args`: a malformed line instead, so nothing starts). */
  | { type: "ralph"; at: Target; flags: RalphFlags; args?: "bad-flag" | "no-task" }
  /** The user sends a message. */
  | { type: "user"; at: Target; keyword?: boolean }
  | { type: "control"; at: Target; command: ControlName }
  /**
   * A whole model turn as OpenCode publishes it: busy, (retry), the reply, (error), (compaction),
   * idle ×`idles`, (late error); `settle`: then every runner job runs to its end (a fast plugin).
   */
  | {
      type: "turn"
      at: Target
      retry: boolean
      reply: Reply
      error?: ErrorKind
      lateError?: boolean
      compact?: boolean
      idles: number
      settle?: boolean
      idleOrder?: IdleOrder
    }
  | { type: "busy"; at: Target; retry: boolean }
  | { type: "idle"; at: Target; order?: IdleOrder }
  | { type: "error"; at: Target; error: ErrorKind }
  /** An assistant message is stored (no status change). */
  | { type: "reply"; at: Target; reply: Reply }
  | { type: "compacted"; at: Target; auto: boolean }
  | { type: "ask"; at: Target; id: number; question?: boolean }
  | { type: "answer"; at: Target; id: number; question?: boolean }
  /** A session is created: a child of `parent` (a subagent) or a root session. */
  | { type: "create"; parent?: Target }
  | { type: "delete"; at: Target }
  | { type: "advance"; ms: number }
  /** The i-th scheduled wake-up fires (the clock jumps to it). */
  | { type: "wake"; i: number }
  /** An awaited call of the i-th runner job comes back, `times` times. */
  | { type: "step"; i: number; times: number }
  /** The i-th newest runner job goes on until it waits on its `nth` effect of `kind` (replays name their moment). */
  | { type: "step-to"; i: number; kind: Effect["kind"]; nth: number }
  /** Every runner job runs to its end (its calls come back before anything else happens). */
  | { type: "settle" }
  /** OpenCode is killed and started again: jobs, timers and turns under way are gone; loops come back from disk. */
  | { type: "restart" }
  /**
   * The OpenCode that runs the loops dies while a second one is open on the project (its instance up
   * since before the loops, holding none): that one takes them back at its next heartbeat (issue 47).
   */
  | { type: "owner-dies" }
  /** A heartbeat of the lease holder: it takes back the loops whose owner is gone (none while it runs them). */
  | { type: "beat" }
  /** The i-th worktree loop (in its own OpenCode instance) starts, edits, completes, stops, or its /ralph is refused. */
  | { type: "wt"; i: number; event: WorktreeEvent }
  /** The WorktreeWatch looks at the worktrees (its once-a-second tick). */
  | { type: "tick" }
  /** The user commits on their branch (it moves: a fast-forward is no longer possible, an edit may conflict). */
  | { type: "user-commit" }

/** Settings of the instance (the config file), shared by every loop of a run; /ralph flags override per loop. */
export interface RunConfig {
  activation: "command" | "always"
  settings: Partial<Omit<Settings, "activation">>
  /** Some of the model's edits skip a test (sim-guard.ts): claims then meet the guard's refusal. */
  weakens?: boolean
}

export interface WorldOptions {
  /** Changes the manager before the run (the tests that plant a bug to show an invariant catches it). */
  patch?: (manager: LoopManager) => void
  /** The project directory (holding SIM_PLAN); without it, one that does not exist (no plan loop starts). */
  directory?: string
}

/** The plan `/ralph --prd` finds: S2 comes first by priority but waits for S1; S3 has its own check. */
export const SIM_PLAN = {
  userStories: [
    { id: "S1", title: "first", acceptanceCriteria: ["one"], priority: 2, passes: false },
    { id: "S2", title: "second", acceptanceCriteria: ["two"], priority: 1, passes: false, dependsOn: ["S1"] },
    {
      id: "S3",
      title: "third",
      acceptanceCriteria: ["three"],
      passes: false,
      checks: [{ name: "own", command: "sim own", kind: "test" }],
    },
  ],
}

export class InvariantError extends Error {
  override readonly name = "InvariantError"
}

// ---------------------------------------------------------------------------------------------
// The world

interface Tracked {
  loop: Loop
  name: string
  lastIteration: number
  lastRetries: number
  /** The breaker as it was before the last decision, and as of the last change (invariant 21). */
  breakerBeforeDecision?: string
  breakerNow?: string
  everStopped: boolean
  /** Paused and not yet resumed by the user (invariant 8). */
  pausedUntilResume: boolean
  /** The busy→idle transition (its idle's event number) the loop may answer with one prompt. */
  credit?: number
  /** OpenCode restarted and recovery has not taken this loop back yet (`loop` is the dead process's object). */
  dormant: boolean
  /** Its place was taken after a restart by a new loop of the same id (the dead process's object, never checked again). */
  gone: boolean
  /** Event number of the loop's last prompt (or its start). */
  lastPromptSeq: number
  prompts: number
  /** A plan loop's stories done, as last seen (invariant 13). */
  planDone: string[]
}

/** A worktree loop the main instance launched, as the simulator keeps its other instance and its branch. */
export interface SimWorktree {
  name: string
  path: string
  /** Its branch's name: `ralph/<name>`, or a slot's story's. */
  branchName: string
  story?: string
  run?: string
  mergeStrategy: WorktreeState["mergeStrategy"]
  /** Its loop, as the worktree's instance saved it (none yet: starting). */
  loop?: Loop
  /** Its /ralph was refused: no loop will start there. */
  refused: boolean
  /** When its loop stopped, and whether its instance has written its end files (the report) since. */
  stoppedAt?: number
  endFilesWritten?: boolean
  /** The OpenCode run (restarts so far) that launched it: a start a restart cut off never saves a loop. */
  launchedIn: number
  /** Its branch: where it began on the user's, its commits, how many of them the user's branch has. */
  branch: { base: string; commits: number; inMain: number; uncommitted: boolean; conflicts: boolean; exists: boolean }
  /** What the main instance recorded of its settling (worktree.json, in the worktree or its archive). */
  outcome?: MergeOutcome
  removed: boolean
}

export interface PromptRecord {
  loop: string
  sessionID: string
  iteration: number
  /** The busy→idle transition it answered (the idle's event number). */
  transition: number
  at: number
}

interface RunningJob {
  id: number
  label: string
  gen: Job
  pending: Effect
  issuedAt: number
  /** An `all` effect under way: its effects are resolved one by one (anything may come between). */
  batch?: { effects: readonly Effect[]; results: unknown[] }
  /** What happens when the job has ended (a command hook that awaited it returns). */
  onEnd?: () => void
}

const RESTING: readonly LoopPhase[] = ["running", "waiting", "paused", "stopped"]
/** A loop that works on the project's files now, or will by itself (invariant 23). */
const LIVE: readonly LoopPhase[] = ["running", "deciding", "waiting", "restarting"]
const isRollbackWrite = (
  effect: Effect,
): effect is Extract<Effect, { kind: "checkpoint-save" | "checkpoint-restore" }> =>
  effect.kind === "checkpoint-save" || effect.kind === "checkpoint-restore"
const PHASES: readonly LoopPhase[] = ["running", "deciding", "restarting", "waiting", "paused", "stopped"]
const MODEL = { providerID: "sim", modelID: "sim-model" }
const START = Date.UTC(2025, 0, 6, 9, 0, 0)
const MAX_DRAIN_STEPS = 20_000

const ERRORS: Record<ErrorKind, { name: string; data: Record<string, unknown> }> = {
  aborted: { name: "MessageAbortedError", data: { message: "The operation was aborted." } },
  "rate-limit": {
    name: "APIError",
    data: {
      message: "Too Many Requests: rate limit exceeded",
      statusCode: 429,
      isRetryable: true,
      responseHeaders: { "retry-after": "20" },
    },
  },
  // A 429 is a usage limit (a wait that counts no retry and no breaker); a 503 a transient failure (a back-off).
  transient: { name: "APIError", data: { message: "Service Unavailable", statusCode: 503, isRetryable: true } },
  auth: { name: "APIError", data: { message: "Unauthorized: invalid x-api-key", statusCode: 401, isRetryable: false } },
  overflow: {
    name: "ContextOverflowError",
    data: { message: "This model's maximum context length is 128000 tokens (context_length_exceeded)" },
  },
  "bad-request": {
    name: "APIError",
    data: { message: "Bad Request: tools.3.input_schema is invalid", statusCode: 400, isRetryable: false },
  },
}

/** Letters only: the progress hash folds digits, so "part 3" and "part 4" would be the same output. */
const word = (n: number) => n.toString(26).replace(/[0-9]/g, (d) => "qrstuvwxyz"[Number(d)] as string)

export class World {
  now = START
  /** Number of the last event published (also orders prompts against events). */
  seq = 0
  /** OpenCode as the plugin reaches it (the host port): its sessions outlive a restart of the plugin. */
  readonly host = new SimHost(this.opencodeSide())
  get sessions(): Map<string, SimSession> {
    return this.host.sessions
  }
  get order(): readonly SimSession[] {
    return this.host.order
  }
  /** The plugin instance of the OpenCode process running now (a restart makes a new one). */
  manager!: LoopManager
  runner!: LoopRunner
  ctx!: RalphContext
  /** Each loop's wake-up time (what the Interpreter keeps as setTimeout handles). */
  readonly timers = new Map<Loop, { until: number }>()
  readonly loops: Tracked[] = []
  readonly prompts: PromptRecord[] = []
  /** The review sessions the plugin created, and how many reviews ran (they alternate reject, approve). */
  readonly reviewSessions = new Set<string>()
  private reviews = 0
  /** The continuations sent to sessions without a loop, in order. */
  readonly continuations: Array<{ sessionID: string; feature: string; text: string }> = []
  readonly trace: string[] = []
  /** The loops' state files, as the real codec writes them. */
  private readonly disk = new Map<string, string>()
  /** Each loop's checkpoints (git refs: they outlive a restart), by loop id. */
  readonly checkpoints = new Map<string, Checkpoint[]>()
  /** The progress log's entries, one per decided iteration. */
  readonly progressEntries: ProgressEntry[] = []
  /** The handoffs written, by the session they summarize. */
  private readonly summaries = new Map<string, string>()
  /** The project memory file (src/memory/), as the plugin sees it. */
  private memory = emptyMemory()
  private readonly projectMemory: ProjectMemory = {
    read: async () => this.memory,
    update: async (change) => (this.memory = change(this.memory)),
  }
  private readonly tracked = new Map<Loop, Tracked>()
  private readonly consumed = new Set<number>()
  private readonly jobs: RunningJob[] = []
  private readonly deferred: Array<() => Promise<void>> = []
  private readonly violations: string[] = []
  private hooks!: {
    event: ReturnType<typeof eventHook>
    chat: ReturnType<typeof chatMessageHook>
    command: ReturnType<typeof commandHook>
    autocontinue: ReturnType<typeof compactionAutocontinueHook>
  }
  private readonly settings: Settings
  /** What the notifications said (notify.*), in order. */
  readonly notifications: NotificationPayload[] = []
  /** The worktree loops launched: their instances and branches outlive a restart of this one. */
  readonly worktreeLoops: SimWorktree[] = []
  /** The stories the plan file marks done, in the order they were marked (the file itself goes with the run's folder). */
  readonly marked: string[] = []
  /** The user's branch in the git model: its head, and how many commits were made on it. */
  private mainHead = "m0"
  private mainCommits = 0
  private ids = 0
  private jobIds = 0
  private workTree = 0
  private step = 0
  /** When the effect being resolved now was issued (a `sleep` ends that long after). */
  private issuedAt = 0
  restarts = 0

  constructor(
    readonly config: RunConfig,
    private readonly options: WorldOptions = {},
  ) {
    const { activation: _a, ...defaults } = DEFAULT_SETTINGS
    this.settings = { ...defaults, ...config.settings, activation: config.activation }
    this.boot()
    this.addSession("ses_A")
    this.addSession("ses_B")
  }

  /** Starts the plugin instance, as OpenCode does when it starts: the real manager, runner and hooks. */
  private boot(adoptAtStart = true): void {
    this.manager = new LoopManager((loop, event) => this.onLoopChange(loop, event))
    this.options.patch?.(this.manager)
    const current = this.settings
    const explicit = new Set(Object.keys(this.config.settings))
    const settings = {
      current,
      explicit,
      reload: () => current,
      showUnseen: () => undefined,
    } as unknown as LiveSettings
    const host: JobHost = {
      start: (label, job) => this.startJob(label, job),
      // As a job whose first effect is the wait, so that anything may happen meanwhile.
      startAfter: (ms, label, job) =>
        this.startJob(
          label,
          ms > 0
            ? (function* () {
                yield* io({ kind: "sleep", ms })
                yield* job()
              })()
            : job(),
        ),
      // The job goes on when the scenario steps it: anything may happen before it ends.
      runNow: (label, job) => Promise.resolve(this.startJob(label, job)),
      persisted: () => Promise.resolve(),
      reached: () => undefined,
      cancelTimer: (loop) => void this.timers.delete(loop),
      dispose: () => this.timers.clear(),
    }
    // Nothing but the plan is there: detectChecks finds no checks (the fuzzer configures its own).
    const directory = this.options.directory ?? "/nonexistent/ralph-loop-fuzz"
    const plans = new PlanRequests()
    const continuations = new ContinuationWatch()
    this.runner = new LoopRunner(host, {
      directory,
      manager: this.manager,
      plans,
      continuations,
      now: () => this.now,
      settings: () => current,
    })
    this.ctx = {
      directory,
      api: this.host,
      manager: this.manager,
      plans,
      runner: this.runner,
      settings,
      memory: this.projectMemory,
      continuations,
      newSessions: new Set<string>(),
      controlTurns: new ControlTurns(),
      savedLoops: async (limit) =>
        [...this.disk.values()]
          .map(parseSavedLoop)
          .filter((l) => l !== undefined)
          .slice(0, limit),
      // The simulator keeps no journal: /ralph-status shows the struggle signal of an empty history.
      loopHistory: async () => [],
      // Worktree loops run in other OpenCode instances; the simulated one has none.
      // The watch ticks when the scenario says so (`tick`), never by a real timer.
      worktrees: new WorktreeWatch(
        () => this.ctx,
        () => () => undefined,
      ),
      // Each start of the simulated OpenCode is another instance: a launch an earlier one began was cut.
      launcher: { pid: process.pid, boot: `sim-${this.restarts}` },
      worktree: () => undefined,
      parallel: new ParallelPlan(() => this.ctx),
      now: () => this.now,
    }
    this.hooks = {
      event: eventHook(this.ctx),
      chat: chatMessageHook(this.ctx),
      command: commandHook(this.ctx),
      autocontinue: compactionAutocontinueHook(this.ctx),
    }
    // As createInstance does: the loops on disk are taken back before any hook acts, and go on a moment later.
    const found = adoptAtStart ? [...this.disk.values()].map((text) => parseStateText(text).loop) : []
    if (adoptAtStart)
      this.runner.recoverAll(this.manager.adoptAll(found, current.resumeOnStart === "ask"), {
        problems: [],
        owned: [],
        loops: found,
      })
    // As createInstance does in the project's own instance: the parallel run takes up what happened
    // meanwhile (its job does nothing without a run: left out then, so other scenarios' jobs keep their places).
    if (readParallelRun(directory)) void this.ctx.parallel.reconcile()
  }

  // --- playing actions ------------------------------------------------------------------------

  /** The loops as their state files hold them now. */
  storedLoops(): Loop[] {
    return [...this.disk.values()].map((text) => parseStateText(text).loop)
  }

  async play(actions: readonly Action[]): Promise<void> {
    for (const action of actions) await this.act(action)
    await this.finish()
  }

  async act(action: Action): Promise<void> {
    this.step += 1
    this.note(`#${this.step} ${describeAction(action, this)}`)
    await this.perform(action)
    await this.settle()
  }

  /** Runs every runner job to its end (no more events come), then checks the end state. */
  async finish(): Promise<void> {
    this.note("# end: every runner call returns, nothing else happens")
    await this.runJobs()
    // The watch goes on ticking: what ended is settled, what became ready starts (until nothing more does).
    for (let k = 0; k < 50; k += 1) {
      const jobs = this.jobIds
      await this.ctx.worktrees.tick()
      await this.runJobs()
      if (this.jobIds === jobs) break
    }
    const marked = this.markedInPlan()
    for (const wt of this.worktreeLoops)
      if (wt.story && wt.run && wt.outcome && reachedBranch(wt.outcome) && !marked.has(wt.story))
        this.violate(
          24,
          `story ${wt.story}'s worktree ${wt.name} reached the user's branch (${wt.outcome.result}) but the story is not marked done in the plan`,
        )
    // A story whose work did not reach the user's branch keeps it on its branch (a slot goes on without it).
    for (const wt of this.worktreeLoops)
      if (wt.branch.commits > wt.branch.inMain && !wt.branch.exists)
        this.violate(
          26,
          `the branch of ${wt.story ?? wt.name} is gone with ${wt.branch.commits - wt.branch.inMain} commit(s) not merged`,
        )
    for (const t of this.loops) {
      const { loop } = t
      if (t.gone) continue
      if (t.dormant)
        this.violate(11, `${t.name} was ${loop.phase} when OpenCode restarted, and recovery never took it back`)
      if (!PHASES.includes(loop.phase)) this.violate(5, `${t.name} ended in an unnamed phase ${String(loop.phase)}`)
      if (!RESTING.includes(loop.phase)) this.violate(5, `${t.name} is stuck in ${loop.phase} with no runner job left`)
      if (loop.phase === "waiting" && !this.timers.has(loop))
        this.violate(5, `${t.name} is waiting with no timer to wake it`)
      if (loop.phase === "stopped" && !loop.stopReason) this.violate(5, `${t.name} stopped without a stopReason`)
    }
    for (const id of this.reviewSessions)
      if (this.live(id)) this.violate(22, `the review session ${id} was not deleted after its review`)
    this.checkEndNotifications()
  }

  /** Invariant 20, at the end. */
  private checkEndNotifications(): void {
    const ids = new Set(this.loops.map((t) => t.loop.id))
    for (const id of ids) {
      const stopped = this.loops
        .filter((t) => t.loop.id === id && t.loop.phase === "stopped")
        .map((t) => t.loop.stopReason)
      const notified = this.notifications.filter((n) => n.loop === id && n.event === "ended").map((n) => n.reason)
      const lost = this.restarts > 0 ? stopped.length - notified.length : 0
      if (notified.length > stopped.length || lost < 0 || (this.restarts === 0 && notified.length !== stopped.length))
        this.violate(20, `loop ${id}: stops [${stopped.join(", ")}] but "ended" notifications [${notified.join(", ")}]`)
      else if (this.restarts === 0 && [...notified].sort().join() !== [...stopped].sort().join())
        this.violate(20, `loop ${id}: stopped for [${stopped.join(", ")}] but notified as [${notified.join(", ")}]`)
    }
  }

  private async runJobs(): Promise<void> {
    let steps = 0
    while (this.jobs.length > 0) {
      if (++steps > MAX_DRAIN_STEPS)
        this.violate(
          5,
          `runner jobs still running after ${MAX_DRAIN_STEPS} steps: ${this.jobs.map((j) => j.label).join(", ")}`,
        )
      const next = this.jobs.find((j) => !this.waitsForLock(j))
      if (!next)
        this.violate(5, `every runner job waits for a lock another holds: ${this.jobs.map((j) => j.label).join(", ")}`)
      await this.stepJob(next)
      await this.settle()
    }
  }

  private async perform(action: Action): Promise<void> {
    switch (action.type) {
      case "ralph":
        return this.ralph(this.sessionAt(action.at), action.flags, action.args)
      case "user": {
        const s = this.live(this.sessionAt(action.at))
        // keyword: "ralph: <task>" starts a loop as /ralph would.
        if (s)
          await this.userMessage(
            s,
            action.keyword
              ? `ralph: Build feature ${word(++this.ids)}`
              : `Please also handle case ${word(++this.ids)}.`,
          )
        return
      }
      case "control":
        return this.control(this.sessionAt(action.at), action.command)
      case "turn":
        return this.turn(this.sessionAt(action.at), action)
      case "busy":
        await this.status(this.sessionAt(action.at), "busy")
        if (action.retry) await this.status(this.sessionAt(action.at), "retry")
        return
      case "idle":
        return this.idle(this.sessionAt(action.at), false, action.order)
      case "error":
        return this.emit({
          type: "session.error",
          properties: { sessionID: this.sessionAt(action.at), error: ERRORS[action.error] },
        })
      case "reply": {
        // OpenCode writes an assistant message only during a turn: its status is busy meanwhile
        // (the events saying so may still reach the plugin late).
        const s = this.live(this.sessionAt(action.at))
        if (s?.busy) this.addReply(s, action.reply)
        return
      }
      case "compacted":
        return this.compaction(this.sessionAt(action.at), action.auto, false)
      case "ask": {
        const sessionID = this.sessionAt(action.at)
        const type = action.question ? "question.asked" : "permission.asked"
        return this.emit({
          type,
          properties: {
            id: `per_${action.id}`,
            sessionID,
            permission: "bash",
            patterns: ["rm -rf build"],
            metadata: {},
            always: [],
          },
        })
      }
      case "answer": {
        const sessionID = this.sessionAt(action.at)
        if (action.question)
          return this.emit({
            type: "question.replied",
            properties: { sessionID, requestID: `per_${action.id}`, answers: [] },
          })
        return this.emit({
          type: "permission.replied",
          properties: { sessionID, requestID: `per_${action.id}`, reply: "once" },
        })
      }
      case "create": {
        const parent = action.parent ? this.live(this.sessionAt(action.parent)) : undefined
        const s = this.addSession(parent ? `ses_C${++this.ids}` : `ses_R${++this.ids}`, parent?.id)
        return this.emit({
          type: "session.created",
          properties: {
            sessionID: s.id,
            info: { id: s.id, ...(s.parentID ? { parentID: s.parentID } : {}), title: "sim" },
          },
        })
      }
      case "delete":
        return this.deleteSession(this.sessionAt(action.at))
      case "advance":
        this.now += action.ms
        return
      case "wake": {
        const due = [...this.timers.entries()]
        if (due.length === 0) return
        const [loop, timer] = due[action.i % due.length] as [Loop, { until: number }]
        this.now = Math.max(this.now, timer.until)
        this.note(`    timer of ${this.nameOf(loop)} fires`)
        this.timers.delete(loop)
        this.runner.wake(loop)
        return
      }
      case "step":
        for (let k = 0; k < action.times && this.jobs.length > 0; k += 1)
          await this.stepJob(this.jobs[action.i % this.jobs.length] as RunningJob)
        return
      case "step-to":
        return this.stepTo(action)
      case "settle":
        return this.runJobs()
      case "restart":
        return this.restart()
      case "owner-dies":
        return this.restart(true)
      case "beat":
        return this.runner.takeBack()
      case "wt":
        return this.worktreeEvent(action.i, action.event)
      case "tick":
        return this.ctx.worktrees.tick()
      case "user-commit":
        this.mainHead = `m${++this.mainCommits}`
        return
    }
  }

  // --- worktree loops (their own OpenCode instances) and git ---------------------------------

  /** What the i-th worktree loop's own instance does: its files change as that instance would write them. */
  private worktreeEvent(i: number, event: WorktreeEvent): void {
    const open = this.worktreeLoops.filter((w) => !w.removed && existsSync(w.path))
    const wt = open[i % Math.max(1, open.length)]
    if (!wt) return
    this.note(`    worktree ${wt.name}: ${event}`)
    const running = wt.loop?.phase === "running"
    switch (event) {
      case "start":
        // Its /ralph runs in the OpenCode process that launched it: a restart since killed it (the worktree's
        // instance too), and nothing sends it again; a start cut off never saves a loop (lifecycle "unstarted").
        if (!wt.loop && !wt.refused && wt.launchedIn === this.restarts) this.saveWorktreeLoop(wt, "running")
        return
      case "refuse":
        if (!wt.loop) wt.refused = true
        return
      case "edit":
      case "conflicting-edit":
        if (running)
          Object.assign(wt.branch, {
            uncommitted: true,
            conflicts: wt.branch.conflicts || event === "conflicting-edit",
          })
        return
      case "complete":
        if (running) this.saveWorktreeLoop(wt, "stopped", "completed")
        return
      case "stop":
        if (running) this.saveWorktreeLoop(wt, "stopped", "max-iterations")
        return
      case "end-files":
        if (wt.loop?.phase === "stopped" && !wt.endFilesWritten) this.writeEndFiles(wt, wt.loop)
    }
  }

  /** The worktree's instance saves its loop (a stopped one writes its report later: "end-files"). */
  private saveWorktreeLoop(
    wt: SimWorktree,
    phase: "running" | "stopped",
    stopReason?: "completed" | "max-iterations" | "cancelled",
  ): void {
    const { activation: _a, ...settings } = this.settings
    const loop: Loop = {
      ...(wt.loop ?? newLoop(`ses_W${++this.ids}`, `Story ${wt.story ?? wt.name}`, settings, this.now)),
      phase,
      ...(stopReason ? { stopReason } : {}),
    }
    wt.loop = loop
    const loops = join(wt.path, STATE_DIR, "loops")
    mkdirSync(loops, { recursive: true })
    writeFileSync(join(loops, `${loop.id}.json`), stateText(loop, this.now))
    if (phase === "stopped") wt.stoppedAt = this.now
  }

  /** What the worktree's instance writes last when its loop ended: its HTML report. */
  private writeEndFiles(wt: SimWorktree, loop: Loop): void {
    const report = htmlReportFile(wt.path, { loop, savedAt: this.now })
    mkdirSync(dirname(report), { recursive: true })
    writeFileSync(report, "<html></html>\n")
    wt.endFilesWritten = true
  }

  private worktreeNamed(name: string): SimWorktree {
    const wt = this.worktreeLoops.findLast((w) => w.name === name)
    if (!wt) throw new Error(`the simulator launched no worktree ${name}`)
    return wt
  }

  /** `worktree-launch` as git and OpenCode do it: the worktree on a new branch from the user's, its worktree.json, a session there. */
  private async launchWorktree(ask: Extract<Effect, { kind: "worktree-launch" }>): Promise<WorktreeStarted> {
    const { name } = ask.state
    if (this.branchExists(ask.state.branch))
      return { ok: false, error: `the branch ${ask.state.branch} exists already` }
    const path = worktreePath(this.ctx.directory, name)
    const state: WorktreeState = { ...ask.state, base: { branch: "main", commit: this.mainHead } }
    mkdirSync(path, { recursive: true })
    await writeWorktreeState(path, state)
    this.addWorktree(path, state)
    return { ok: true, state, path, sessionID: `ses_W${++this.ids}` }
  }

  private branchExists(branch: string): boolean {
    return this.worktreeLoops.some((w) => w.branchName === branch && w.branch.exists)
  }

  /** A worktree loop begins at `path` (a new worktree, or a slot's next story). */
  private addWorktree(path: string, state: WorktreeState): void {
    this.worktreeLoops.push({
      name: state.name,
      path,
      branchName: state.branch,
      mergeStrategy: state.mergeStrategy,
      refused: false,
      removed: false,
      launchedIn: this.restarts,
      branch: { base: this.mainHead, commits: 0, inMain: 0, uncommitted: false, conflicts: false, exists: true },
      ...(state.story ? { story: state.story } : {}),
      ...(state.run ? { run: state.run } : {}),
    })
  }

  /**
   * `slot-reset` as git and OpenCode do it: a story whose branch exists already does not start (the slot stays as it
   * is); a slot with uncommitted work is retired; else its last story leaves (its branch parked), and the next one
   * begins there in the same instance.
   */
  private async resetSlot(ask: Extract<Effect, { kind: "slot-reset" }>): Promise<WorktreeStarted> {
    if (this.branchExists(ask.state.branch))
      return { ok: false, error: `the branch ${ask.state.branch} exists already` }
    const current = this.worktreeLoops.findLast((w) => w.path === ask.path && !w.removed)
    const before = readWorktreeState(ask.path)
    const why = !current
      ? "it is gone"
      : current.branch.uncommitted
        ? "the slot holds changes not in a commit"
        : undefined
    if (!current || why) {
      if (before) await writeWorktreeState(ask.path, { ...before, retired: why ?? "?" })
      return { ok: false, error: `the slot ${ask.state.name} could not take the story: ${why}`, slotRetired: true }
    }
    this.park(current)
    current.removed = true
    rmSync(join(ask.path, STATE_DIR, "loops"), { recursive: true, force: true })
    const state: WorktreeState = { ...ask.state, base: { branch: "main", commit: this.mainHead } }
    await writeWorktreeState(ask.path, state)
    this.addWorktree(ask.path, state)
    return { ok: true, state, path: ask.path, sessionID: `ses_W${++this.ids}` }
  }

  /** The slot leaves the branch: deleted when the user's branch has all of it (`git branch -d`), else kept. */
  private park(wt: SimWorktree): { branchDeleted: boolean } {
    if (!wt.branch.exists || wt.branch.commits > wt.branch.inMain) return { branchDeleted: false }
    wt.branch.exists = false
    return { branchDeleted: true }
  }

  private mergeFacts(state: WorktreeState): MergeFacts {
    const { branch } = this.worktreeNamed(state.name)
    // git's `rev-list HEAD..<branch>` fails on a branch that is gone (a slot parked after its merge deletes it).
    if (!branch.exists) throw new SimCallError(`git rev-list: unknown revision ${state.branch}`)
    const ahead = branch.commits > branch.inMain
    const fastForward = branch.base === this.mainHead
    const conflicts = state.mergeStrategy === "merge" && ahead && branch.conflicts && !fastForward ? ["src/a.ts"] : []
    return {
      strategy: state.mergeStrategy,
      branch: state.branch,
      ahead,
      onBaseBranch: true,
      baseBranch: "main",
      fastForward,
      mainClean: true,
      conflicts,
    }
  }

  /** git merge: what the facts said may no longer hold (the user committed meanwhile): then git refuses. */
  private merge({ state, how }: Extract<Effect, { kind: "worktree-merge" }>): void {
    const wt = this.worktreeNamed(state.name)
    const moved = wt.branch.base !== this.mainHead
    if (how === "fast-forward" && moved)
      throw new SimCallError(`git merge --ff-only ${state.branch}: not possible to fast-forward`)
    if (how === "merge" && moved && wt.branch.conflicts)
      throw new SimCallError(`git merge ${state.branch}: conflict in src/a.ts`)
    this.mainHead = how === "fast-forward" ? `${state.branch}@${wt.branch.commits}` : `m${++this.mainCommits}`
    if (how === "fast-forward") wt.branch.base = this.mainHead
    wt.branch.inMain = wt.branch.commits
  }

  /** The stories marked done in the plan file now. */
  markedInPlan(): Set<string> {
    const path = join(this.ctx.directory, DEFAULT_SETTINGS.prdPath)
    if (!existsSync(path)) return new Set()
    const file = JSON.parse(readFileSync(path, "utf8")) as { userStories: Array<{ id: string; passes: boolean }> }
    return new Set(file.userStories.filter((s) => s.passes).map((s) => s.id))
  }

  /** Invariant 24, as a plan write goes out. */
  private checkPlanMark(plan: PlanState): void {
    const before = this.markedInPlan()
    const after = plan.done.map((d) => d.id)
    if (new Set(after).size !== after.length)
      this.violate(24, `the plan is written with a story done twice: [${after.join(", ")}]`)
    for (const id of before)
      if (!after.includes(id)) this.violate(24, `the plan write takes back story ${id}, marked done before`)
    for (const id of after) {
      if (before.has(id)) continue
      const wt = this.worktreeLoops.findLast((w) => w.story === id)
      if (!wt) this.violate(24, `story ${id} is marked done, but no worktree loop ever ran it`)
      else if (
        !wt.outcome ||
        !reachedBranch(wt.outcome) ||
        wt.branch.commits > wt.branch.inMain ||
        wt.branch.uncommitted
      )
        this.violate(
          24,
          `story ${id} is marked done, but its worktree ${wt.name} did not reach the user's branch (${wt.outcome?.result ?? "not settled"}; ${wt.branch.commits - wt.branch.inMain} commit(s) not merged)`,
        )
    }
  }

  private async stepTo({ i, kind, nth }: Extract<Action, { type: "step-to" }>): Promise<void> {
    // Counted from the newest job: the one the last event started.
    const job = this.jobs[this.jobs.length - 1 - (i % Math.max(1, this.jobs.length))]
    let seen = 0
    for (let k = 0; job && k < MAX_DRAIN_STEPS && this.jobs.includes(job); k += 1) {
      if (job.pending.kind === kind && ++seen === nth) return
      await this.stepJob(job)
      await this.settle()
    }
    // A replay that names a moment the job never reaches would test nothing.
    throw new Error(`step-to: the job never waited on ${kind} #${nth}`)
  }

  /**
   * OpenCode is killed and starts again on the same data: the plugin's jobs, timers and anything
   * in flight are gone, turns under way are cut off, and a new plugin instance recovers the loops
   * from their state files. A recovered loop may send one prompt without a new turn end (the
   * restart is its transition).
   */
  private async restart(takenBackByAnother = false): Promise<void> {
    this.restarts += 1
    this.jobs.length = 0
    this.timers.clear()
    this.deferred.length = 0
    for (const s of this.sessions.values()) {
      s.busy = false
      delete s.lastBusySeq
      // The continuations' counts live in the plugin's memory only: they start over.
      Object.assign(s, { todoStreak: 0, autoCount: 0, cancelled: false })
      delete s.completedAtCont
      // The requests of the killed process's turns are gone with it.
      s.pending.clear()
    }
    for (const t of this.loops) {
      if (t.loop.phase === "stopped" || t.gone) continue
      t.dormant = true
      // Each loop's own pseudo-transition: one prompt each (transitions are answered once across loops).
      t.credit = ++this.seq
    }
    // The second OpenCode was open before: it adopted nothing at its start, and takes them back at a beat.
    this.boot(!takenBackByAnother)
    if (takenBackByAnother) this.runner.takeBack()
  }

  /** `/ralph`: command.execute.before, then the command's message goes through chat.message. */
  private async ralph(sessionID: string, flags: RalphFlags, bad?: "bad-flag" | "no-task"): Promise<void> {
    const s = this.live(sessionID)
    if (!s) return // nobody types into a session that does not exist
    const task = `Build feature ${word(++this.ids)}`
    const args =
      bad === "no-task"
        ? "--max-iterations 3"
        : bad === "bad-flag"
          ? `${task} --max-iteration 3`
          : [task, ...flagWords(flags)].join(" ")
    // (`--prd` with no path: the setting prdPath, where SIM_PLAN is.)
    const parts = [this.textPart(s.id, "", args)]
    await this.hooks.command({ command: "ralph", sessionID: s.id, arguments: args }, { parts })
    await this.userMessage(s, parts)
  }

  private async control(sessionID: string, command: ControlName): Promise<void> {
    const s = this.live(sessionID)
    if (!s) return
    // (/ralph-rollback without arguments: back to the checkpoint before the last.)
    const args = command === "ralph-hint" ? "look at the parser first" : ""
    const parts = [this.textPart(s.id, "", `${CONTROL_MARKER} /${command} ${args}`)]
    if (command === "cancel-ralph") s.cancelled = true
    const started = this.jobIds
    await this.hooks.command({ command, sessionID: s.id, arguments: args }, { parts })
    // The command hook awaits a rollback job to its end (runNow): only then does OpenCode store the
    // command's message and start its turn. Here the job goes on as the scenario steps it.
    const rollback = this.jobs.find((j) => j.id > started && j.label.startsWith("rollback of"))
    if (rollback)
      rollback.onEnd = () =>
        this.deferred.push(async () => void (this.live(s.id) && (await this.userMessage(s, parts))))
    else await this.userMessage(s, parts)
  }

  /**
   * OpenCode stores a user message: chat.message may change its parts, then it is stored. A message
   * the user typed (a command too) starts a turn at once: the session is busy (the turn's end comes
   * as a later action). The plugin's own prompts are queued; their turns come as `turn` actions.
   */
  private async userMessage(s: SimSession, content: string | Part[], typed = true): Promise<void> {
    const id = this.messageID()
    const info: UserMessage = {
      id,
      sessionID: s.id,
      role: "user",
      time: { created: this.now },
      agent: "build",
      model: MODEL,
    }
    const parts =
      typeof content === "string" ? [this.textPart(s.id, id, content)] : content.map((p) => ({ ...p, messageID: id }))
    const command = parts.some((p) => p.type === "text" && p.text.startsWith(CONTROL_MARKER))
    // The user writes in a session without a loop: the continuations' counts start over.
    if (typed && !command && !this.manager.get(s.id)) {
      Object.assign(s, { todoStreak: 0, autoCount: 0, cancelled: false })
      delete s.completedAtCont
    }
    await this.hooks.chat({ sessionID: s.id, agent: "build", model: MODEL, messageID: id }, { message: info, parts })
    s.messages.push({ info, parts })
    if (!typed) return
    if (!command) s.lastUserSeq = ++this.seq
    await this.status(s.id, "busy")
  }

  private async turn(sessionID: string, a: Extract<Action, { type: "turn" }>): Promise<void> {
    await this.status(sessionID, "busy")
    if (a.retry) await this.status(sessionID, "retry")
    const s = this.live(sessionID)
    if (s) this.addReply(s, a.reply, a.error)
    if (a.error && !a.lateError)
      await this.emit({ type: "session.error", properties: { sessionID, error: ERRORS[a.error] } })
    if (a.compact) await this.compaction(sessionID, true, false)
    for (let k = 0; k < Math.max(1, a.idles); k += 1) await this.idle(sessionID, false, a.idleOrder)
    if (a.error && a.lateError)
      await this.emit({ type: "session.error", properties: { sessionID, error: ERRORS[a.error] } })
    if (a.settle) await this.runJobs()
  }

  private addReply(s: SimSession, reply: Reply, error?: ErrorKind): void {
    const id = this.messageID()
    const n = ++this.ids
    const texts: Record<ReplyKind, string[]> = {
      fresh: [`Worked on part ${word(n)}.`],
      same: ["Still looking into it."],
      promise: ["Everything is done and tested. <promise>DONE</promise>"],
      empty: [],
      interrupted: [`Starting on part ${word(n)}`],
      length: [`A very long answer about ${word(n)}`],
      blocked: [
        `Cannot go on.\n---RALPH_STATUS---\nSTATUS: BLOCKED\nEXIT_SIGNAL: false\nRECOMMENDATION: needs a key ${word(n)}\n---END_RALPH_STATUS---`,
      ],
      "status-complete": [
        `Finished ${word(n)}.\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---`,
      ],
    }
    const info = {
      id,
      sessionID: s.id,
      role: "assistant",
      time: reply.kind === "interrupted" && !error ? { created: this.now } : { created: this.now, completed: this.now },
      parentID: lastUserID(s),
      modelID: MODEL.modelID,
      providerID: MODEL.providerID,
      mode: "build",
      path: { cwd: "/", root: "/" },
      cost: reply.tokens / 100_000,
      tokens: { input: reply.tokens, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      ...(reply.kind === "length" ? { finish: "length" } : reply.kind === "interrupted" ? {} : { finish: "stop" }),
      ...(error ? { error: ERRORS[error] } : {}),
    } as AssistantMessage
    s.messages.push({ info, parts: texts[reply.kind].map((text) => this.textPart(s.id, id, text)) })
    if (reply.edit) this.workTree += 1
    if (error) s.turnErrored = true
    if (reply.todos) {
      const todo = (status: string, k: number): Todo => ({
        id: `todo_${k}`,
        content: `step ${word(k + 1)}`,
        status,
        priority: "high",
      })
      s.todos = [
        ...Array.from({ length: reply.todos.completed }, (_, k) => todo("completed", k)),
        ...Array.from({ length: reply.todos.open }, (_, k) => todo("pending", 100 + k)),
      ]
      // An emptied list ends a todo streak (the plugin sees no open todos at the turn's end).
      if (reply.todos.open === 0) {
        s.todoStreak = 0
        delete s.completedAtCont
      }
    }
  }

  /** A compaction: OpenCode's own after an overflow (`auto`), or the plugin's summarize (`own`). */
  private async compaction(sessionID: string, auto: boolean, own: boolean): Promise<void> {
    const s = this.live(sessionID)
    if (s) {
      const requestID = this.messageID()
      const request: UserMessage = {
        id: requestID,
        sessionID,
        role: "user",
        time: { created: this.now },
        agent: "build",
        model: MODEL,
      }
      s.messages.push({
        info: request,
        parts: [{ id: this.partID(), sessionID, messageID: requestID, type: "compaction", auto } as Part],
      })
      const summaryID = this.messageID()
      const summary = {
        id: summaryID,
        sessionID,
        role: "assistant",
        time: { created: this.now, completed: this.now },
        parentID: requestID,
        modelID: MODEL.modelID,
        providerID: MODEL.providerID,
        mode: "compaction",
        summary: true,
        path: { cwd: "/", root: "/" },
        cost: 0,
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
        finish: "stop",
      } as AssistantMessage
      s.messages.push({
        info: summary,
        parts: [this.textPart(sessionID, summaryID, `Summary of the work so far (${word(++this.ids)}).`)],
      })
      if (auto) {
        const output = { enabled: true }
        await this.hooks.autocontinue({ sessionID, agent: "build", overflow: true } as never, output)
      }
    }
    await this.emit({ type: "session.compacted", properties: { sessionID } }, own)
  }

  private async status(sessionID: string, type: "busy" | "retry" | "idle", own = false): Promise<void> {
    const status = type === "retry" ? { type, attempt: 1, message: "Overloaded", next: this.now + 1_000 } : { type }
    await this.emit({ type: "session.status", properties: { sessionID, status } }, own)
  }

  /** OpenCode's idle: `session.status {idle}` then `session.idle` (or another `order`). */
  private async idle(sessionID: string, own = false, order: IdleOrder = "status-first"): Promise<void> {
    const status = () => this.status(sessionID, "idle", own)
    const idle = () => this.emit({ type: "session.idle", properties: { sessionID } }, own)
    if (order !== "idle-only" && order !== "idle-first") await status()
    if (order !== "status-only") await idle()
    if (order === "idle-first") await status()
  }

  private async deleteSession(sessionID: string): Promise<void> {
    const s = this.sessions.get(sessionID)
    if (s) {
      s.deleted = true
      s.busy = false
    }
    await this.emit({ type: "session.deleted", properties: { sessionID, info: { id: sessionID, title: "sim" } } })
  }

  /** Publishes an event: OpenCode's own state first, then the plugin's event hook (the real one). */
  private async emit(event: RuntimeEvent, own = false): Promise<void> {
    const seq = ++this.seq
    const props = (event.properties ?? {}) as { sessionID?: string; status?: { type?: string } }
    const s = props.sessionID ? this.sessions.get(props.sessionID) : undefined
    if (event.type === "session.status" && s) {
      const busy = props.status?.type === "busy" || props.status?.type === "retry"
      // A new turn: a busy after idle — by status, or by session.idle alone (idle-only orders never
      // set the status idle, so a busy after them still starts a turn whose error is its own).
      if (busy && (!s.busy || s.lastBusySeq === undefined)) s.turnErrored = false
      s.busy = busy
      if (busy && !own) s.lastBusySeq = seq
      if (busy) delete s.idleEcho
    }
    if (event.type === "session.error" && s) s.turnErrored = true
    const request = event.type.endsWith(".asked")
      ? (props as { id?: string }).id
      : event.type.startsWith("permission.") || event.type.startsWith("question.")
        ? (props as { requestID?: string }).requestID
        : undefined
    if (s && request) {
      if (event.type.endsWith(".asked")) s.pending.add(request)
      else s.pending.delete(request)
    }
    // Either announcement ends the turn; the first one is the transition, the second finds no busy.
    const idle = event.type === "session.idle" || (event.type === "session.status" && props.status?.type === "idle")
    if (idle && s) {
      const via = event.type === "session.idle" ? "idle" : "status"
      if (s.lastBusySeq !== undefined) {
        s.idleEcho = via
        // A busy→idle transition (the busy not the plugin's own summarize): every loop living here
        // whose last prompt came before that busy may answer it, once; so may one continuation.
        for (const t of this.loops) if (t.loop.sessionID === s.id && s.lastBusySeq > t.lastPromptSeq) t.credit = seq
        if (s.lastBusySeq > s.lastContSeq) s.contCredit = { seq, errored: s.turnErrored }
      } else if (s.idleEcho !== undefined && s.idleEcho !== via) delete s.idleEcho
      else if (!own) s.lastStrayIdleSeq = seq
      delete s.lastBusySeq
    }
    this.note(`    ${own ? "(own) " : ""}${describeEvent(event)}`)
    const deletedID = event.type === "session.deleted" ? props.sessionID : undefined
    // A loop not yet recovered after a restart is closed by recovery instead (its session is gone then).
    const living = deletedID
      ? this.loops.filter((t) => !t.dormant && !t.gone && t.loop.phase !== "stopped" && t.loop.sessionID === deletedID)
      : []
    await this.hooks.event({ event: event as unknown as Event })
    await this.flushDeferred()
    for (const t of living)
      if (t.loop.phase !== "stopped")
        this.violate(7, `${deletedID} was deleted but ${t.name}, living there, is ${t.loop.phase}`)
  }

  // --- the runner's jobs and calls ------------------------------------------------------------

  private startJob(label: string, gen: Job): void {
    const id = ++this.jobIds
    this.note(`    job ${id} starts: ${label}`)
    const job: RunningJob = { id, label, gen, pending: { kind: "sleep", ms: 0 }, issuedAt: this.now }
    this.advance(job, () => gen.next())
  }

  /** Resumes `job` with the result of its pending effect (a failed call is thrown into it). */
  /** A job whose lock another job holds: it goes on only once that one has let go. */
  private waitsForLock(job: RunningJob): boolean {
    return job.pending.kind === "lock" && job.pending.lock.isHeld
  }

  private async stepJob(job: RunningJob): Promise<void> {
    if (job.pending.kind === "lock" && !job.pending.lock.tryTake())
      return this.note(`    job ${job.id} waits: ${job.pending.lock.name} is held`)
    if (job.label.startsWith("continuations of") || job.label.startsWith("work tree before"))
      this.checkFeatureUse(job.pending)
    let value: unknown
    let failure: SimCallError | undefined
    try {
      value = await this.resolve(job.pending, job.issuedAt)
    } catch (error) {
      if (!(error instanceof SimCallError)) throw error
      failure = error
    }
    this.note(
      `    job ${job.id}: ${describeEffect(job.pending)} → ${failure ? `fails (${failure.message})` : short(value)}`,
    )
    const batch = job.batch
    if (batch && !failure) {
      batch.results.push(value)
      const next = batch.effects[batch.results.length]
      if (next) {
        job.pending = next
        job.issuedAt = this.now
        this.issue(next)
        return this.flushDeferred()
      }
    }
    delete job.batch
    this.advance(job, () => (failure ? job.gen.throw(failure) : job.gen.next(batch ? batch.results : value)))
    await this.flushDeferred()
  }

  /**
   * Runs the job's code up to its next effect that takes time: instant effects (toasts, logs, crash
   * points, timers, spawned jobs) are done on the spot, as production does them.
   */
  private advance(job: RunningJob, resume: () => IteratorResult<Effect, void>): void {
    let result = resume()
    while (!result.done && INSTANT.has(result.value.kind)) {
      const effect = result.value
      this.instant(effect)
      result = job.gen.next(undefined)
    }
    const index = this.jobs.indexOf(job)
    if (result.done) {
      if (index >= 0) this.jobs.splice(index, 1)
      job.onEnd?.()
      return
    }
    if (index < 0) this.jobs.push(job)
    const effect = result.value
    job.issuedAt = this.now
    if (effect.kind === "all") {
      job.batch = { effects: effect.effects, results: [] }
      job.pending = effect.effects[0] as Effect
    } else job.pending = effect
    this.issue(job.pending)
  }

  /** An instant effect, done on the spot (its handler is synchronous, as production's are in effect). */
  private instant(effect: Effect): void {
    if (effect.kind !== "all") void handle(this.handlers, effect)
  }

  /** What happens the moment the runner makes a call (before it returns). */
  private issue(effect: Effect): void {
    if (isRollbackWrite(effect)) return this.checkRollbackWrite(effect.loop, effect.kind)
    if (effect.kind === "worktree-reclaim") {
      const wt = this.worktreeLoops.findLast((w) => w.name === effect.name && !w.removed)
      if (wt?.loop) this.violate(26, `the worktree ${wt.name} is taken for a new start though its loop was saved there`)
      return
    }
    if (effect.kind === "worktree-archive") {
      const wt = this.worktreeLoops.findLast((w) => w.path === effect.path && !w.removed)
      if (!wt) throw new Error(`the simulator has no worktree at ${effect.path}`)
      if (
        wt.loop?.phase === "stopped" &&
        !wt.endFilesWritten &&
        wt.stoppedAt !== undefined &&
        this.now - wt.stoppedAt < END_FILES_WAIT_MS
      )
        this.violate(
          28,
          `the worktree ${wt.name} is archived ${this.now - wt.stoppedAt} ms after its loop stopped, before its instance wrote its report`,
        )
      return
    }
    if (effect.kind === "worktree-remove") {
      const { branch, name } = this.worktreeNamed(effect.name)
      if (branch.commits > branch.inMain)
        this.violate(
          26,
          `the worktree ${name} is removed with ${branch.commits - branch.inMain} commit(s) the user's branch lacks`,
        )
      if (branch.uncommitted) this.violate(26, `the worktree ${name} is removed with uncommitted work in it`)
      return
    }
    if (effect.kind === "slot-remove") {
      const wt = this.worktreeLoops.findLast((w) => w.path === effect.path && !w.removed)
      if (wt?.branch.uncommitted) this.violate(26, `the slot ${wt.name} is removed with uncommitted work in it`)
      if (wt?.loop && wt.loop.phase !== "stopped")
        this.violate(26, `the slot ${wt.name} is removed while its loop runs`)
      return
    }
    if (effect.kind === "parallel-mark") return this.checkPlanMark(effect.plan)
    if (effect.kind === "parallel-record" && effect.run) {
      const done = effect.run.plan.done.map((d) => d.id)
      if (new Set(done).size !== done.length)
        this.violate(24, `the run's record holds a story done twice: [${done.join(", ")}]`)
      return
    }
    if (effect.kind === "worktree-launch" && effect.state.story) {
      const story = SIM_PLAN.userStories.find((st) => st.id === effect.state.story)
      const marked = this.markedInPlan()
      const dependsOn: readonly string[] = (story && "dependsOn" in story ? story.dependsOn : undefined) ?? []
      const waiting = dependsOn.filter((id) => !marked.has(id))
      if (waiting.length > 0)
        this.violate(
          25,
          `story ${effect.state.story} starts before ${waiting.join(", ")} (its dependencies) are marked done in the plan`,
        )
      return
    }
    // Checked when the call goes out: a loop the user starts there while it is in flight ends with the session (invariant 7).
    if (effect.kind === "delete-session") {
      const living = this.manager.get(effect.sessionID)
      if (living)
        this.violate(9, `the runner deletes ${effect.sessionID}, where ${this.nameOf(living)} lives (${living.phase})`)
      return
    }
    if (effect.kind === "summarize") {
      // The compaction starts at once: the session is busy while the runner waits for it.
      if (this.live(effect.sessionID)) this.deferred.push(() => this.status(effect.sessionID, "busy", true))
      return
    }
    if (effect.kind === "continue") {
      this.onContinuation(effect.sessionID, effect.feature)
      this.continuations.push({ sessionID: effect.sessionID, feature: effect.feature, text: effect.input.text })
      const s = this.live(effect.sessionID)
      if (s) this.deferred.push(() => this.userMessage(s, effect.input.text, false))
      return
    }
    if (effect.kind === "set-title") {
      const living = this.manager.get(effect.sessionID)
      if (living)
        this.violate(
          14,
          `the runner retitles ${effect.sessionID} as ended ("${effect.title}"), but ${this.nameOf(living)} lives there (${living.phase})`,
        )
      return
    }
    if (effect.kind !== "prompt") return
    this.onPrompt(effect.loop, effect.sessionID)
    const s = this.live(effect.sessionID)
    // OpenCode takes the prompt: chat.message runs and the user message is stored.
    if (s)
      this.deferred.push(() => this.userMessage(s, `Continue the task (iteration ${effect.loop.iteration}).`, false))
  }

  /** The effect is done now: its result (or a promise of it), or a SimCallError. */
  private resolve(effect: Effect, issuedAt: number): unknown {
    if (effect.kind === "all") throw new Error(`the simulator has no answer for the effect ${effect.kind}`)
    this.issuedAt = issuedAt
    return handle(this.handlers, effect)
  }

  /** The simulator's handler of each effect kind: a kind without one fails `npm run typecheck`, as in production. */
  private readonly handlers: Handlers = {
    // OpenCode's calls: production's own handlers, with the simulated OpenCode as their host.
    ...hostHandlers({ api: this.host, assertLive: () => undefined }),
    ...this.jobHandlers(),
    ...this.projectHandlers(),
    ...this.checkpointHandlers(),
    ...this.featureHandlers(),
    ...this.worktreeHandlers(),
    // `ralph-loop clean` asked of this instance: the real clean, on the simulated project's real files.
    "project-clean": async (effect) => {
      const lines: string[] = []
      const ok = await cleanProject(effect.request, (line) => lines.push(line), this.now)
      return { ok, lines }
    },
  }

  /**
   * The effects that steer jobs; the instant ones (schedule, spawn, log, …) are done on the spot.
   * `log` replaces production's (which hands the line to the host): the error it carries is checked.
   */
  private jobHandlers() {
    return {
      sleep: (effect) => {
        this.now = Math.max(this.now, this.issuedAt + effect.ms)
        return undefined
      },
      lock: () => undefined,
      schedule: (effect) => {
        // As the Interpreter: a timer only for a loop that waits.
        if (keepsTimer(effect.loop)) this.timers.set(effect.loop, { until: effect.until })
        else this.timers.delete(effect.loop)
      },
      spawn: (effect) => this.startJob(effect.label, effect.job),
      log: (effect) => {
        this.note(`    log ${effect.level}: ${effect.message}`)
        // A violation found inside a job (a change the manager reported) is that violation, not a 12.
        if (effect.cause instanceof InvariantError) throw effect.cause
        if (effect.cause !== undefined && !(effect.cause instanceof SimCallError))
          this.violate(
            12,
            `production code caught an error that is no failed OpenCode call: ${effect.message}\n${effect.cause instanceof Error ? effect.cause.stack : ""}`,
          )
      },
      reached: () => undefined,
    } satisfies Partial<Handlers>
  }

  /** The work tree, the checks and the loop's own files. */
  private projectHandlers() {
    return {
      sample: (effect) => ({
        workTree: `tree-${this.workTree}`,
        todosCompleted: 0,
        openTodos: [],
        sessionID: effect.loop.sessionID,
      }),
      "changed-files": () => (this.workTree > 0 ? ["src/a.ts"] : []),
      "guard-read": () => simGuardRead(this.workTree, this.config.weakens === true),
      replay: () => simReplay(this.workTree, this.config.weakens === true),
      // Production starts the replay's reads here and the replay takes them; the simulator's replay reads nothing.
      "replay-prepare": () => undefined,
      "work-tree": () => ({ head: "sim-head", tree: "sim-tree" }),
      fingerprint: () => `tree-${this.workTree}`,
      "commit-story": () => ({ skipped: "the simulator has no git" }),
      "story-branch": () => ({ skipped: "the simulator has no git" }),
      "run-checks": (effect) =>
        checksFor(effect.loop.settings, effect.loop.plan).map((check) => this.checkResult(check.name, check.kind)),
      "detect-checks": () => [],
      "auto-checks": (effect) => effect.checks.map((check) => this.checkResult(check.name, check.kind)),
      "verify-state": () => undefined,
      // The other OpenCode is dead once a loop is on disk and not run here (the simulator has one live instance).
      "orphaned-loops": (effect) =>
        this.storedLoops().filter((l) => l.phase !== "stopped" && !effect.running.includes(l.id)),
      persisted: () => undefined,
      "write-transcript": () => undefined,
      "write-summary": (effect) => {
        this.summaries.set(effect.record.sessionID, effect.record.summary)
        return `${this.ctx.directory}/.opencode/sessions/${effect.record.sessionID}/ralph_summary.md`
      },
      "read-summary": (effect) => this.summaries.get(effect.sessionID),
    } satisfies Partial<Handlers>
  }

  /** Checkpoints, as git refs that outlive a restart. */
  private checkpointHandlers() {
    return {
      checkpoint: (effect) => {
        // As makeCheckpoint: checkpoint 0 starts the loop's afresh; the number is the real rule's.
        const kept = effect.iteration === 0 ? [] : (this.checkpoints.get(effect.loop.id) ?? [])
        const number = checkpointNumber(kept, effect.iteration)
        const made: Checkpoint = {
          ref: checkpointRef(effect.loop.id, number),
          number,
          iteration: effect.iteration,
          commit: `sim-${this.workTree}`,
          at: this.now,
        }
        this.checkpoints.set(
          effect.loop.id,
          [...kept.filter((c) => c.number !== made.number), made].sort((a, b) => a.number - b.number),
        )
        return { made }
      },
      checkpoints: (effect) => [...(this.checkpoints.get(effect.loop.id) ?? [])],
      "checkpoint-save": (effect) => {
        const list = this.checkpoints.get(effect.loop.id) ?? []
        const number = nextCheckpointNumber(list)
        const saved: Checkpoint = {
          ref: checkpointRef(effect.loop.id, number),
          number,
          commit: `sim-${this.workTree}`,
          at: this.now,
        }
        this.checkpoints.set(effect.loop.id, [...list, saved])
        return saved
      },
      "checkpoint-restore": (effect) => {
        if (effect.present.commit === effect.target.commit) return []
        this.workTree += 1
        return [{ status: "M", path: "src/a.ts" }]
      },
    } satisfies Partial<Handlers>
  }

  /** Review, plans, memory and notifications. */
  private featureHandlers() {
    return {
      "loop-diff": () => (this.workTree > 0 ? "diff --git a/src/a.ts b/src/a.ts\n" : ""),
      "default-models": () => this.host.defaultModels(),
      "review-ask": (effect) => this.host.ask(effect.sessionID, effect.input),
      "write-plan": () => ({ changed: [] }),
      "append-progress": (effect) => {
        this.progressEntries.push(effect.entry)
        return undefined
      },
      "read-progress": () => undefined,
      "read-plan": (effect) => ({
        ok: false,
        reason: "missing",
        file: effect.path,
        message: `the plan file ${effect.path} does not exist`,
        problems: [],
      }),
      memory: () => this.memory,
      remember: (effect) => {
        this.memory = effect.items.reduce(
          (m, item) => remember(m, item.section, { ...item, date: isoDate(this.now) }, effect.maxEntries),
          this.memory,
        )
        return undefined
      },
      "settle-staged": (effect) => {
        this.memory = settleStaged(this.memory, effect.loopID, effect.completed, isoDate(this.now), effect.maxEntries)
        return undefined
      },
      "send-notification": (effect) => {
        this.notifications.push(effect.notification.payload)
        return { problems: [] }
      },
    } satisfies Partial<Handlers>
  }

  /** Worktree loops and parallel runs: git as the model of branches, every file the real one. */
  private worktreeHandlers() {
    return {
      worktrees: (effect) => readWorktrees(this.ctx.directory, effect.launcher),
      "story-worktree": (effect) => storyWorktree(this.ctx.directory, effect, effect.run),
      "worktree-launch": (effect) => this.launchWorktree(effect),
      "worktree-command": (effect) =>
        this.host.runCommand(effect.path, effect.sessionID, "ralph", `-- ${effect.task}`).then(() => ({})),
      "worktree-commit": (effect) => {
        const wt = this.worktreeLoops.findLast((w) => w.path === effect.path)
        if (!wt?.branch.uncommitted) return undefined
        wt.branch.commits += 1
        wt.branch.uncommitted = false
        return `${wt.name}-${wt.branch.commits}`
      },
      "worktree-merge-facts": (effect) => this.mergeFacts(effect.state),
      "worktree-merge": (effect) => this.merge(effect),
      "worktree-archive": async (effect) => {
        if (!effect.keepInstance) await this.host.closeInstance(effect.path)
        return archiveWorktreeFiles(this.ctx.directory, effect.name, effect.path, this.now)
      },
      "slot-reset": (effect) => this.resetSlot(effect),
      "slot-park": (effect) => {
        const wt = this.worktreeLoops.findLast((w) => w.path === effect.path && !w.removed)
        return wt ? this.park(wt) : { branchDeleted: false }
      },
      "slot-cancel": (effect) => {
        // The slot's instance takes the request: its loop, if it runs, is cancelled there.
        const wt = this.worktreeLoops.findLast((w) => w.path === effect.path && !w.removed)
        if (wt?.loop?.phase !== "running") return "no loop runs there"
        this.saveWorktreeLoop(wt, "stopped", "cancelled")
        return "cancelled"
      },
      "slot-remove": (effect) => {
        const wt = this.worktreeLoops.findLast((w) => w.path === effect.path && !w.removed)
        if (wt?.branch.uncommitted) return { problem: "it holds changes not in a commit", folderGone: false }
        rmSync(effect.path, { recursive: true, force: true })
        if (wt) wt.removed = true
        return { removed: true as const }
      },
      "worktree-remove": (effect) => {
        const wt = this.worktreeNamed(effect.name)
        rmSync(effect.path, { recursive: true, force: true })
        Object.assign(wt, { removed: true })
        wt.branch.exists = false
        return { removed: true as const }
      },
      // A call into the worktree's directory starts its instance: the simulated ones run anyway.
      "worktree-wake": (effect) => this.host.listSessions(effect.path).then(() => undefined),
      "worktree-reclaim": (effect) => {
        // What git would show: a branch with commits of its own, or files in the folder, keep it.
        const wt = this.worktreeLoops.findLast((w) => w.name === effect.name && !w.removed)
        if (!wt || wt.loop || wt.branch.commits > wt.branch.inMain || wt.branch.uncommitted)
          return { ok: false as const, why: "it holds work" }
        rmSync(effect.path, { recursive: true, force: true })
        Object.assign(wt, { removed: true })
        wt.branch.exists = false
        return { ok: true as const }
      },
      "worktree-record": async (effect) => {
        await writeWorktreeState(effect.directory, effect.state)
        if (effect.state.merge) this.worktreeNamed(effect.state.name).outcome = effect.state.merge
        return undefined
      },
      "parallel-run": () => readParallelRun(this.ctx.directory),
      "parallel-record": (effect) => writeParallelRun(this.ctx.directory, effect.run),
      "parallel-mark": async (effect) => {
        const written = await writePlanBack(this.ctx.directory, effect.plan)
        for (const id of this.markedInPlan()) if (!this.marked.includes(id)) this.marked.push(id)
        return written
      },
    } satisfies Partial<Handlers>
  }

  /** A check passes when the work tree is in an even state (every edit flips it). */
  private checkResult(name: string, kind: CheckKind = "test"): CheckResult {
    const passed = this.workTree % 2 === 0
    if (kind !== "test") {
      const errors = passed ? 0 : 1 + (this.workTree % 3)
      const output = passed ? "" : `src/a.ts(1,1): error TS2322: Type 'x' is not assignable\nFound ${errors} errors`
      return {
        name,
        kind,
        command: `sim ${kind}`,
        status: passed ? "passed" : "failed",
        exitCode: passed ? 0 : 2,
        durationMs: 10,
        output,
        errors,
        warnings: 0,
        info: 0,
        security: 0,
        testsRun: 0,
        testsFailed: 0,
        testsPassed: 0,
        files: passed ? [] : [{ path: "src/a.ts", errors, warnings: 0 }],
      }
    }
    const output = passed ? "Tests 3 passed" : "FAIL src/a.test.ts\nTests 1 failed | 2 passed"
    return {
      name,
      kind: "test",
      command: "sim test",
      status: passed ? "passed" : "failed",
      exitCode: passed ? 0 : 1,
      durationMs: 10,
      output,
      errors: 0,
      warnings: 0,
      info: 0,
      security: 0,
      testsRun: 3,
      testsFailed: passed ? 0 : 1,
      testsPassed: passed ? 3 : 2,
      files: passed ? [] : [{ path: "src/a.ts", errors: 1, warnings: 0 }],
    }
  }

  private async flushDeferred(): Promise<void> {
    while (this.deferred.length > 0) await (this.deferred.shift() as () => Promise<void>)()
  }

  private async settle(): Promise<void> {
    await this.flushDeferred()
    this.checkViolations()
    this.checkState()
  }

  // --- invariants -----------------------------------------------------------------------------

  private onLoopChange(loop: Loop, event: string): void {
    if (event === "recovered") {
      const live = this.loops.find(
        (t) => !t.dormant && !t.gone && t.loop !== loop && t.loop.phase !== "stopped" && t.loop.id === loop.id,
      )
      if (live) this.violate(30, `${live.name} is taken back while a live instance runs it: two engines, one loop`)
    }
    // What the store writes: the state file, through the real codec (recovery reads it back).
    this.disk.set(loop.id, stateText(loop, this.now))
    this.runner.loopChanged(loop, event)
    if (event === "started") {
      // A loop started in its own session after a restart takes the place (and the file) of the dead process's loop.
      for (const old of this.loops)
        if (old.dormant && old.loop.id === loop.id) Object.assign(old, { dormant: false, gone: true })
      const t: Tracked = {
        loop,
        name: `loop ${this.loops.length + 1} (${loop.id})`,
        lastIteration: loop.iteration,
        lastRetries: loop.retries,
        everStopped: false,
        pausedUntilResume: false,
        lastPromptSeq: this.seq,
        prompts: 0,
        dormant: false,
        gone: false,
        planDone: loop.plan?.done.map((d) => d.id) ?? [],
      }
      this.loops.push(t)
      this.tracked.set(loop, t)
    }
    // Recovery took back (or closed) a loop of the dead process, or finished the retirement of one
    // that had ended: the same loop, a new object.
    const endedRetiring = (t: Tracked) =>
      event === "retired" && loop.phase === "stopped" && t.loop.phase === "stopped" && !t.gone
    const revived = this.tracked.has(loop)
      ? undefined
      : this.loops.findLast((t) => (t.dormant || endedRetiring(t)) && t.loop.id === loop.id)
    if (revived) {
      this.tracked.delete(revived.loop)
      revived.loop = loop
      revived.dormant = false
      this.tracked.set(loop, revived)
    }
    const t = this.tracked.get(loop)
    if (!t) return this.violate(6, `the manager changed a loop it never started (${loop.id}, ${event})`)
    this.note(`    ${t.name}: ${event} → ${loop.phase}, iteration ${loop.iteration}, retries ${loop.retries}`)
    if (loop.plan) this.checkPlan(t, loop.plan, event)
    if (event === "decided") t.breakerBeforeDecision = t.breakerNow
    if (event === "waiting:usage-limit") {
      if (JSON.stringify(loop.breaker) !== t.breakerBeforeDecision)
        this.violate(
          21,
          `${t.name}: a usage limit changed the breaker from ${t.breakerBeforeDecision} to ${JSON.stringify(loop.breaker)}`,
        )
      if (loop.retries !== t.lastRetries)
        this.violate(21, `${t.name}: a usage limit counted a retry (${t.lastRetries} → ${loop.retries})`)
    }
    t.breakerNow = JSON.stringify(loop.breaker)
    if (event === "stopped:completed" && guardMode(loop.settings.guard) === "refuse") {
      const replay = loop.evidence?.replay
      const proven = replay !== undefined && replay !== null && replayVerdict(replay) === "proven"
      const standing = proven ? [] : (loop.evidence?.weakened.filter(stands) ?? [])
      if (standing.length > 0)
        this.violate(29, `${t.name} completed on a claim the guard refused: ${standing.map((f) => f.kind).join(", ")}`)
      if (replay && replayVerdict(replay) === "failed")
        this.violate(29, `${t.name} completed on a claim whose replay of the start's tests failed`)
      if (loop.evidence?.verified && replay && !proven)
        this.violate(31, `${t.name} is verified, yet its replay did not pass (${replay.status})`)
    }
    if (event.startsWith("stopped:")) t.everStopped = true
    else if (event === "paused") t.pausedUntilResume = true
    else if (event === "resumed") t.pausedUntilResume = false
    this.checkLoop(t, event)
  }

  /** Invariant 13, at every change of a plan loop. */
  private checkPlan(t: Tracked, plan: PlanState, event: string): void {
    const { loop } = t
    const done = plan.done.map((d) => d.id)
    if (t.planDone.some((id, i) => done[i] !== id))
      this.violate(13, `${t.name}: stories done went from [${t.planDone.join(", ")}] to [${done.join(", ")}]`)
    const added = done.slice(t.planDone.length)
    if (added.length > 0) {
      if (event !== "decided")
        this.violate(13, `${t.name}: story ${added.join(", ")} marked done by "${event}", not by a decision`)
      if (added.length > 1) this.violate(13, `${t.name}: ${added.length} stories marked done by one decision`)
      const expected = nextStory(plan.stories, new Set(t.planDone))
      if (added[0] !== expected?.id)
        this.violate(
          13,
          `${t.name}: story ${added[0]} marked done, but the next by priority and dependsOn was ${expected?.id ?? "none"}`,
        )
      const text = loop.lastTurn?.texts.join("\n") ?? ""
      if (!text.includes(`<promise>${loop.settings.promiseWord}</promise>`) && !text.includes("EXIT_SIGNAL: true"))
        this.violate(13, `${t.name}: story ${added[0]} marked done on a turn that claimed nothing`)
      const checks = checksFor(loop.settings, { ...plan, done: plan.done.slice(0, t.planDone.length) })
      const last = loop.snapshots.at(-1)
      if (
        checks.length > 0 &&
        (last?.iteration !== loop.iteration ||
          last.checks.length !== checks.length ||
          last.checks.some((c) => c.status !== "passed"))
      )
        this.violate(
          13,
          `${t.name}: story ${added[0]} marked done without its ${checks.length} check(s) passing on iteration ${loop.iteration}`,
        )
    }
    if (event === "stopped:completed" && done.length !== plan.stories.length)
      this.violate(13, `${t.name} completed with ${done.length} of ${plan.stories.length} stories done`)
    t.planDone = done
  }

  private onPrompt(loop: Loop, sessionID: string): void {
    const t = this.tracked.get(loop)
    if (!t) return this.violate(2, `a prompt to ${sessionID} from a loop nobody started`)
    if (this.reviewSessions.has(sessionID)) this.violate(22, `${t.name} prompts ${sessionID}, a review session`)
    this.note(`    PROMPT → ${sessionID} from ${t.name}, iteration ${loop.iteration}`)
    const s = this.sessions.get(sessionID)
    if (!s) this.violate(2, `${t.name} prompts ${sessionID}, a session OpenCode does not know`)
    else if (s.parentID) this.violate(2, `${t.name} prompts ${sessionID}, a child session of ${s.parentID}`)
    const living = this.manager.get(sessionID)
    if (living !== loop)
      this.violate(2, `${t.name} prompts ${sessionID}, but ${living ? this.nameOf(living) : "no loop"} lives there`)
    if (loop.phase !== "running") this.violate(2, `${t.name} prompts while ${loop.phase}`)
    if (t.everStopped) this.violate(3, `${t.name} prompts after it stopped (${loop.stopReason ?? "?"})`)
    const writing = this.jobs.find((j) => isRollbackWrite(j.pending) && j.pending.loop === loop)
    if (writing && t.pausedUntilResume)
      this.violate(
        23,
        `${t.name} prompts while a rollback of it waits on ${writing.pending.kind} (job ${writing.id}), not resumed by the user`,
      )
    if (t.pausedUntilResume)
      this.violate(8, `${t.name} prompts while paused by "${loop.detail ?? "?"}" and not resumed by the user`)
    if (t.credit !== undefined && s?.lastUserSeq !== undefined && s.lastUserSeq > t.credit)
      this.violate(
        10,
        `${t.name} prompts ${sessionID} over the user: they wrote there (event ${s.lastUserSeq}) after the turn end it answers (event ${t.credit})`,
      )
    if (t.credit === undefined)
      this.violate(1, `${t.name} prompts with no busy→idle transition of its session since its last prompt`)
    else if (this.consumed.has(t.credit))
      this.violate(1, `${t.name} prompts for the transition ending at event ${t.credit}, already answered`)
    else this.consumed.add(t.credit)
    this.prompts.push({ loop: t.name, sessionID, iteration: loop.iteration, transition: t.credit ?? -1, at: this.seq })
    delete t.credit
    t.lastPromptSeq = this.seq
    t.prompts += 1
  }

  /** Invariant 23: a rollback's write goes out. */
  private checkRollbackWrite(loop: Loop, kind: string): void {
    const name = this.tracked.has(loop) ? this.nameOf(loop) : `the ended loop ${loop.id}`
    if (loop.phase !== "paused" && loop.phase !== "stopped")
      this.violate(23, `a rollback of ${name} writes the work tree (${kind}) while the loop is ${loop.phase}`)
    if (this.timers.has(loop))
      this.violate(23, `a rollback of ${name} writes the work tree (${kind}) while the loop's wake-up timer is armed`)
    const live = this.manager.all().find((other) => other !== loop && LIVE.includes(other.phase))
    if (live)
      this.violate(
        23,
        `a rollback of ${name} writes the work tree (${kind}) while ${this.nameOf(live)} is ${live.phase}`,
      )
  }

  /** A continuation prompt (todo-continuation, auto-continue) to a session without a loop. */
  private onContinuation(sessionID: string, feature: "todo-continuation" | "auto-continue"): void {
    this.note(`    CONTINUATION (${feature}) → ${sessionID}`)
    const s = this.live(sessionID)
    if (this.reviewSessions.has(sessionID)) this.violate(22, `a ${feature} prompt to ${sessionID}, a review session`)
    if (!s) return this.violate(15, `a ${feature} prompt to ${sessionID}, a session OpenCode does not have`)
    if (s.parentID) this.violate(15, `a ${feature} prompt to ${sessionID}, a child session of ${s.parentID}`)
    const owner = this.manager.find(sessionID) ?? this.manager.all().find((l) => l.restart?.sessionID === sessionID)
    if (owner)
      this.violate(15, `a ${feature} prompt to ${sessionID}, where ${this.nameOf(owner)} lives (${owner.phase})`)
    if (!featureOn(this.settings, feature)) this.violate(15, `a ${feature} prompt while that feature is off`)
    if (s.cancelled)
      this.violate(18, `a ${feature} prompt to ${sessionID} after /cancel-ralph there, before the user wrote`)
    const credit = s.contCredit
    if (!credit)
      this.violate(16, `a ${feature} prompt to ${sessionID} with no busy→idle transition since its last prompt`)
    else if (this.consumed.has(credit.seq))
      this.violate(16, `a ${feature} prompt for the transition ending at event ${credit.seq}, already answered`)
    else if (credit.errored)
      this.violate(16, `a ${feature} prompt answering a turn that ended in an error (event ${credit.seq})`)
    else if (s.lastUserSeq !== undefined && s.lastUserSeq > credit.seq)
      this.violate(
        16,
        `a ${feature} prompt over the user: they wrote in ${sessionID} (event ${s.lastUserSeq}) after the turn end it answers (event ${credit.seq})`,
      )
    else if (s.lastStrayIdleSeq !== undefined && s.lastStrayIdleSeq > credit.seq)
      this.violate(
        16,
        `a ${feature} prompt after the user pressed Esc in ${sessionID} (a stray idle, event ${s.lastStrayIdleSeq}) following the turn end it answers (event ${credit.seq})`,
      )
    else if (s.pending.size > 0)
      this.violate(16, `a ${feature} prompt to ${sessionID} while ${[...s.pending].join(", ")} waits for the user`)
    else this.consumed.add(credit.seq)
    delete s.contCredit
    s.lastContSeq = this.seq
    if (feature === "todo-continuation") {
      const completed = s.todos.filter((t) => t.status === "completed").length
      if (!s.todos.some((t) => t.status !== "completed" && t.status !== "cancelled"))
        this.violate(15, `a todo continuation to ${sessionID}, which has no open todo`)
      if (s.completedAtCont !== undefined && completed > s.completedAtCont) s.todoStreak = 0
      s.todoStreak += 1
      s.completedAtCont = completed
      if (s.todoStreak > this.settings.todoContinuationMax)
        this.violate(
          17,
          `${s.todoStreak} todo continuations in a row in ${sessionID} without a todo completed (todoContinuationMax ${this.settings.todoContinuationMax})`,
        )
    } else if (++s.autoCount > this.settings.autoContinueMax)
      this.violate(
        17,
        `${s.autoCount} auto-continuations in ${sessionID} for one user message (autoContinueMax ${this.settings.autoContinueMax})`,
      )
  }

  /** Invariant 19: what a continuation job asks for, its feature must be on for. */
  private checkFeatureUse(effect: Effect): void {
    if (effect.kind === "todos" && !featureOn(this.settings, "todo-continuation"))
      this.violate(19, `todo-continuation is off, yet ${effect.sessionID}'s todos are read`)
    if (
      (effect.kind === "auto-checks" || effect.kind === "fingerprint" || effect.kind === "detect-checks") &&
      !featureOn(this.settings, "auto-continue")
    )
      this.violate(19, `auto-continue is off, yet it asks for ${effect.kind}`)
  }

  private checkLoop(t: Tracked, event?: string): void {
    const { loop } = t
    if (t.gone) return
    if (this.reviewSessions.has(loop.sessionID))
      this.violate(22, `${t.name} lives in ${loop.sessionID}, a review session`)
    const unsentTakenBack =
      event?.startsWith("stopped:") === true &&
      loop.iteration === t.lastIteration - 1 &&
      loop.retries === t.lastRetries - 1 &&
      !this.prompts.some((p) => p.loop === t.name && p.iteration === t.lastIteration)
    if (unsentTakenBack) Object.assign(t, { lastIteration: loop.iteration, lastRetries: loop.retries })
    if (t.everStopped && loop.phase !== "stopped")
      this.violate(3, `${t.name} left stopped (${loop.stopReason ?? "?"}) for ${loop.phase}`)
    if (loop.iteration < t.lastIteration)
      this.violate(4, `${t.name}: iteration went back from ${t.lastIteration} to ${loop.iteration}`)
    if (loop.retries < t.lastRetries)
      this.violate(4, `${t.name}: retries went back from ${t.lastRetries} to ${loop.retries}`)
    if (taskRetries(loop) > loop.settings.maxRetries)
      this.violate(
        4,
        `${t.name}: retries of the current task ${taskRetries(loop)} > maxRetries ${loop.settings.maxRetries}`,
      )
    if (loop.iteration > maxIterations(loop))
      this.violate(
        4,
        `${t.name}: iteration ${loop.iteration} > ${maxIterations(loop)} (maxRetries ${loop.settings.maxRetries}, maxIterations ${loop.settings.maxIterations})`,
      )
    t.lastIteration = Math.max(t.lastIteration, loop.iteration)
    t.lastRetries = Math.max(t.lastRetries, loop.retries)
    if (!PHASES.includes(loop.phase)) this.violate(5, `${t.name} is in an unnamed phase ${String(loop.phase)}`)
    // Only the user ends a pause (a message, /ralph-resume) — or the loop ends.
    if (t.pausedUntilResume && loop.phase !== "paused" && loop.phase !== "stopped")
      this.violate(8, `${t.name} left paused ("${loop.detail ?? "?"}") for ${loop.phase} without the user resuming it`)
  }

  /** After every action and runner step. */
  private checkState(): void {
    // A start cut off by a restart (no loop saved, its launcher gone) runs nothing: not live, as in src/worktrees/lifecycle.ts.
    const live = this.worktreeLoops.filter(
      (w) =>
        !w.removed &&
        !w.outcome &&
        w.loop?.phase !== "stopped" &&
        (w.loop !== undefined || w.launchedIn === this.restarts),
    )
    if (live.length > this.settings.maxParallelLoops)
      this.violate(
        27,
        `${live.length} worktree loops are live (${live.map((w) => w.name).join(", ")}), maxParallelLoops is ${this.settings.maxParallelLoops}`,
      )
    for (const t of this.loops) this.checkLoop(t)
    const all = this.manager.all()
    if (new Set(all).size !== all.length) this.violate(6, "the manager holds one loop under two sessions")
    for (const loop of all) {
      const name = this.nameOf(loop)
      if (this.manager.get(loop.sessionID) !== loop)
        this.violate(6, `${name} is mapped under a session other than its own ${loop.sessionID}`)
      if (loop.phase === "stopped") this.violate(6, `${name} is stopped but still mapped`)
    }
    for (const t of this.loops)
      if (!t.dormant && !t.gone && t.loop.phase !== "stopped" && this.manager.get(t.loop.sessionID) !== t.loop)
        this.violate(
          6,
          `${t.name} is ${t.loop.phase} but the manager has no loop for its session ${t.loop.sessionID} (it can never be claimed or cancelled there)`,
        )
  }

  private violate(invariant: number, message: string): never {
    const text = `invariant ${invariant}: ${message}`
    this.violations.push(text)
    this.note(`    !! ${text}`)
    throw new InvariantError(text)
  }

  /** A violation seen inside a hook (whose throw OpenCode would swallow) still fails the run. */
  private checkViolations(): void {
    const first = this.violations[0]
    if (first !== undefined) throw new InvariantError(first)
  }

  // --- helpers --------------------------------------------------------------------------------

  sessionAt(target: Target): string {
    switch (target.kind) {
      case "id":
        return target.id
      case "unknown":
        return "ses_unknown"
      case "any":
        return (this.order[target.i % this.order.length] as SimSession).id
      case "loop": {
        const live = this.loops.filter((t) => !t.gone && t.loop.phase !== "stopped")
        const pool = live.length > 0 ? live : this.loops
        if (pool.length === 0) return (this.order[target.i % 2] as SimSession).id
        return (pool[target.i % pool.length] as Tracked).loop.sessionID
      }
    }
  }

  nameOf(loop: Loop): string {
    return this.tracked.get(loop)?.name ?? `untracked loop ${loop.id}`
  }

  note(line: string): void {
    this.trace.push(line)
  }

  traceText(lines = 120): string {
    const tail = this.trace.slice(-lines)
    return `${this.trace.length > lines ? `… (${this.trace.length - lines} earlier lines)\n` : ""}${tail.join("\n")}`
  }

  private live(sessionID: string): SimSession | undefined {
    return this.host.live(sessionID)
  }

  private mustLive(sessionID: string, what: string): SimSession {
    return this.host.mustLive(sessionID, what)
  }

  private addSession(id: string, parentID?: string, title = "sim"): SimSession {
    return this.host.add(id, parentID, title)
  }

  /** What OpenCode makes happen when the plugin calls it (SimHost): events published, a turn run. */
  private opencodeSide(): SimWorld {
    return {
      now: () => this.now,
      nextID: () => ++this.ids,
      created: async (s) => {
        if (s.title.startsWith("Ralph review · ")) this.reviewSessions.add(s.id)
        await this.emit({
          type: "session.created",
          properties: { sessionID: s.id, info: { id: s.id, title: s.title } },
        })
      },
      compacted: async (sessionID) => {
        await this.compaction(sessionID, false, true)
        await this.idle(sessionID, true)
      },
      deleted: (sessionID) => this.deleteSession(sessionID),
      // The reviewer's turn, as OpenCode runs it: the prompt passes chat.message, the session goes
      // busy and idle (its idle must reach no continuation). Reviews alternate: reject, approve, …
      replied: async (s, text) => {
        await this.userMessage(s, text)
        await this.idle(s.id)
        return ++this.reviews % 2 === 1
          ? "<verdict>reject</verdict>\n- the test was deleted"
          : "<verdict>approve</verdict>"
      },
      // The worktree's /ralph has run its first turn: its loop started there, unless it was refused.
      commandRan: (directory) => {
        const wt = this.worktreeLoops.findLast((w) => w.path === directory)
        if (wt && !wt.loop && !wt.refused && existsSync(wt.path)) this.saveWorktreeLoop(wt, "running")
      },
    }
  }

  private messageID(): string {
    return `msg_${String(++this.ids).padStart(5, "0")}`
  }

  private partID(): string {
    return `prt_${String(++this.ids).padStart(5, "0")}`
  }

  private textPart(sessionID: string, messageID: string, text: string): TextPart {
    return { id: this.partID(), sessionID, messageID, type: "text", text }
  }
}

/** Plays `actions` in a fresh world; throws InvariantError (with the trace) when an invariant breaks. */
export async function runScenario(
  config: RunConfig,
  actions: readonly Action[],
  options: WorldOptions = {},
): Promise<World> {
  // The project holds the plan a `/ralph --prd` reads; it is removed whatever happens.
  const directory = mkdtempSync(join(tmpdir(), "ralph-fuzz-"))
  try {
    mkdirSync(join(directory, ".opencode"))
    writeFileSync(join(directory, DEFAULT_SETTINGS.prdPath), JSON.stringify(SIM_PLAN))
    const world = new World(config, { directory, ...options })
    try {
      await world.play(actions)
    } catch (error) {
      if (error instanceof Error)
        error.message = `${error.message}\n--- trace ---\n${world.traceText(Number(process.env.FUZZ_TRACE_LINES ?? 120))}`
      throw error
    }
    return world
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

function flagWords(flags: RalphFlags): string[] {
  const words: string[] = []
  if (flags.plan) words.push("--prd")
  if (flags.strategy) words.push("--strategy", flags.strategy)
  if (flags.maxRetries !== undefined) words.push("--max-retries", String(flags.maxRetries))
  if (flags.maxIterations !== undefined) words.push("--max-iterations", String(flags.maxIterations))
  if (flags.maxCallsPerHour !== undefined) words.push("--max-calls-per-hour", String(flags.maxCallsPerHour))
  if (flags.noProgressThreshold !== undefined) words.push("--no-progress-threshold", String(flags.noProgressThreshold))
  if (flags.sameErrorThreshold !== undefined) words.push("--same-error-threshold", String(flags.sameErrorThreshold))
  if (flags.maxTokens !== undefined) words.push("--max-tokens", String(flags.maxTokens))
  if (flags.maxMinutes !== undefined) words.push("--max-minutes", String(flags.maxMinutes))
  if (flags.cooldownMinutes !== undefined) words.push("--cooldown-minutes", String(flags.cooldownMinutes))
  if (flags.review) words.push("--review")
  if (flags.worktree) words.push("--worktree")
  if (flags.parallel !== undefined) words.push(...(flags.plan ? [] : ["--prd"]), "--parallel", String(flags.parallel))
  return words
}

function lastUserID(s: SimSession): string {
  for (let i = s.messages.length - 1; i >= 0; i -= 1)
    if (s.messages[i]?.info.role === "user") return (s.messages[i] as MessageWithParts).info.id
  return "msg_none"
}

function short(value: unknown): string {
  if (value === undefined) return "ok"
  if (Array.isArray(value)) return `${value.length} messages`
  if (typeof value === "object" && value !== null && "id" in value) return String((value as { id: unknown }).id)
  if (typeof value === "object" && value !== null && "workTree" in value)
    return String((value as { workTree: unknown }).workTree)
  return String(value)
}

function describeEffect(effect: Effect): string {
  switch (effect.kind) {
    case "sleep":
      return `sleep ${effect.ms} ms`
    case "messages":
    case "todos":
    case "is-idle":
    case "summarize":
    case "select-session":
    case "delete-session":
    case "set-title":
    case "prompt":
    case "session-exists":
    case "session":
    case "continue":
    case "auto-checks":
    case "review-ask":
      return `${effect.kind} ${effect.sessionID}`
    case "sample":
    case "changed-files":
    case "work-tree":
    case "checkpoint":
    case "checkpoints":
    case "checkpoint-save":
    case "checkpoint-restore":
    case "commit-story":
    case "story-branch":
    case "loop-diff":
    case "guard-read":
    case "replay":
    case "replay-prepare":
    case "run-checks":
    case "verify-state":
    case "persisted":
      return `${effect.kind} of ${effect.loop.id}`
    case "create-session":
      return `create-session "${effect.title}"`
    case "lock":
      return `lock (${effect.lock.name})`
    case "worktree-launch":
    case "worktree-merge-facts":
      return `${effect.kind} ${effect.state.name}`
    case "worktree-merge":
      // Named by its branch: a slot's worktree merges one story's branch after another.
      return `worktree-merge ${effect.state.branch} (${effect.how})`
    case "worktree-record":
      return `worktree-record ${effect.state.name}${effect.state.merge ? ` (${effect.state.merge.result})` : ""} in ${effect.directory.includes("/merged/") ? "its archive" : "the worktree"}`
    case "worktree-wake":
      return `worktree-wake ${effect.path.slice(effect.path.lastIndexOf("/") + 1)}`
    case "worktree-archive":
    case "worktree-remove":
    case "worktree-reclaim":
    case "slot-park":
    case "slot-remove":
      return `${effect.kind} ${effect.name}`
    case "slot-cancel":
      return `slot-cancel ${effect.path.slice(effect.path.lastIndexOf("/") + 1)}`
    case "story-worktree":
      return `story-worktree ${effect.story} (${effect.worktree})`
    case "slot-reset":
      return `slot-reset ${effect.state.name} → ${effect.state.story ?? "?"}`
    case "worktree-command":
    case "worktree-commit":
      return `${effect.kind} ${effect.path.split("/").at(-1) ?? ""}`
    case "parallel-mark":
      return `parallel-mark [${effect.plan.done.map((d) => d.id).join(", ")}]`
    case "parallel-record":
      return `parallel-record ${effect.run ? `running [${effect.run.running.map((r) => r.story).join(", ")}], done [${effect.run.plan.done.map((d) => d.id).join(", ")}]` : "(removed)"}`
    default:
      return effect.kind
  }
}

function describeEvent(event: RuntimeEvent): string {
  const p = (event.properties ?? {}) as {
    sessionID?: string
    status?: { type?: string }
    error?: { name?: string; data?: { statusCode?: number } }
    info?: { parentID?: string }
    id?: string
    requestID?: string
  }
  switch (event.type) {
    case "session.status":
      return `session.status ${p.status?.type} ${p.sessionID}`
    case "session.error":
      return `session.error ${p.sessionID} ${p.error?.name}${p.error?.data?.statusCode ? ` ${p.error.data.statusCode}` : ""}`
    case "session.created":
      return `session.created ${p.sessionID}${p.info?.parentID ? ` (child of ${p.info.parentID})` : ""}`
    case "permission.asked":
    case "question.asked":
      return `${event.type} ${p.sessionID} ${p.id}`
    case "permission.replied":
    case "question.replied":
      return `${event.type} ${p.sessionID} ${p.requestID}`
    default:
      return `${event.type} ${p.sessionID}`
  }
}

export function describeAction(action: Action, world?: World): string {
  const at = (t: Target) => (world ? world.sessionAt(t) : JSON.stringify(t))
  switch (action.type) {
    case "ralph":
      return `/ralph in ${at(action.at)}${
        action.args
          ? ` (${action.args})`
          : flagWords(action.flags)
              .map((w) => ` ${w}`)
              .join("")
      }`
    case "user":
      return `user message in ${at(action.at)}`
    case "control":
      return `/${action.command} in ${at(action.at)}`
    case "turn":
      return `model turn in ${at(action.at)}: ${action.reply.kind}${action.reply.edit ? "+edit" : ""}${action.retry ? ", retry" : ""}${action.error ? `, ${action.lateError ? "late " : ""}${action.error} error` : ""}${action.compact ? ", compaction" : ""}, ${Math.max(1, action.idles)} idle(s)${action.idleOrder && action.idleOrder !== "status-first" ? ` (${action.idleOrder})` : ""}${action.settle ? ", then the runner settles" : ""}`
    case "busy":
      return `busy${action.retry ? " + retry" : ""} ${at(action.at)}`
    case "idle":
      return `idle ${at(action.at)}${action.order && action.order !== "status-first" ? ` (${action.order})` : ""}`
    case "error":
      return `session.error ${action.error} ${at(action.at)}`
    case "reply":
      return `assistant message (${action.reply.kind}) in ${at(action.at)}`
    case "compacted":
      return `compaction${action.auto ? " (auto)" : ""} in ${at(action.at)}`
    case "ask":
      return `${action.question ? "question" : "permission"} asked in ${at(action.at)} (per_${action.id})`
    case "answer":
      return `${action.question ? "question" : "permission"} answered in ${at(action.at)} (per_${action.id})`
    case "create":
      return action.parent ? `child session of ${at(action.parent)}` : "new root session"
    case "delete":
      return `delete ${at(action.at)}`
    case "advance":
      return `clock +${action.ms / 1000} s`
    case "wake":
      return `timer #${action.i} fires`
    case "step":
      return `runner call returns (job #${action.i}, ×${action.times})`
    case "step-to":
      return `runner job #${action.i} goes on until it waits on ${action.kind}${action.nth > 1 ? ` #${action.nth}` : ""}`
    case "settle":
      return "every runner job runs to its end"
    case "restart":
      return "OpenCode is killed and restarted"
    case "owner-dies":
      return "OpenCode is killed; another one open on the project takes its loops back at its heartbeat"
    case "beat":
      return "the lease holder's heartbeat (loops whose owner is gone are taken back)"
    case "wt":
      return `worktree loop #${action.i}: ${action.event}`
    case "tick":
      return "the worktree watch ticks"
    case "user-commit":
      return "the user commits on their branch"
  }
}
