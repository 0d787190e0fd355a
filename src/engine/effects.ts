// The effects a job of the loop asks for. A job is a generator: it yields an effect, and gets its
// result back (or its error thrown in) when the effect is done. Production resolves effects with
// the SDK client, git, the checks and the store (interpreter.ts); the event-order fuzzer resolves
// the same jobs' effects against a simulated OpenCode and can put any event between two of them.
import type { Session, Todo } from "@opencode-ai/sdk"
import type { CheckConfig } from "../config/schema.js"
import type { StartCapture } from "../loop/changed-files.js"
import type { Checkpoint, TreeChange } from "../checkpoints/checkpoints.js"
import type { StoryCommit } from "../changes/auto-commit.js"
import type { CheckResult } from "../checks/diagnostics.js"
import type { Loop } from "../loop/loop.js"
import type { ProgressSample } from "../loop/progress.js"
import type { LogLevel, PromptInput } from "../opencode/api.js"
import type { CrashPoint } from "../host/faults.js"
import type { MessageWithParts } from "../loop/read-turn.js"
import type { ProgressEntry } from "../store/progress-entry.js"
import type { StoreProblem } from "../store/loop-store.js"
import type { PlanFileRead } from "../plan/plan-file.js"
import type { SummaryRecord } from "../store/session-files.js"
import type { MemoryFile, MemorySection } from "../memory/memory-file.js"
import type { Notice } from "../loop/notices.js"
import type { Notification } from "../notify/notification.js"
import type { WorktreeEntry } from "../worktrees/worktree-loops.js"
import type { StoryWorktree } from "../worktrees/parallel-file.js"
import type { MergeFacts } from "../worktrees/merge-plan.js"
import type { Launcher, WorktreeState } from "../worktrees/worktree-state.js"
import type { ParallelRun } from "../worktrees/parallel.js"
import type { PlanState } from "../plan/plan.js"
import type { WorktreeStarted } from "../commands/start-worktree.js"
import type { JobLock } from "../effects/job-lock.js"
import type { GuardRead } from "../changes/guard-read.js"

export interface RememberItem {
  section: MemorySection
  source: string
  text: string
}

type ModelRef = { providerID: string; modelID: string }

/** Each effect kind with what it asks for and what it gives back. */
interface Effects {
  sleep: { ask: { ms: number }; result: void }
  messages: { ask: { sessionID: string }; result: MessageWithParts[] }
  sessions: { ask: object; result: Session[] }
  /** undefined: OpenCode could not say. */
  "session-exists": { ask: { sessionID: string }; result: boolean | undefined }
  todos: { ask: { sessionID: string }; result: Todo[] }
  "is-idle": { ask: { sessionID: string }; result: boolean }
  summarize: { ask: { sessionID: string; model: ModelRef }; result: void }
  "create-session": { ask: { title: string }; result: { id: string } }
  "select-session": { ask: { sessionID: string }; result: void }
  prompt: { ask: { loop: Loop; sessionID: string; input: PromptInput }; result: void }
  "delete-session": { ask: { sessionID: string }; result: void }
  /** Renames a session (how a stopped loop ended, in the TUI's session list). */
  "set-title": { ask: { sessionID: string; title: string }; result: void }
  /** The work tree and the session's completed todos, for the progress measure. */
  sample: { ask: { loop: Loop }; result: ProgressSample }
  /** Files changed since the loop began, outside its own folders (never fails: [] then). */
  "changed-files": { ask: { loop: Loop }; result: string[] }
  /** HEAD and the changed files' content as the loop begins (undefined: not a git repository, or git failed). */
  "work-tree": { ask: { loop: Loop }; result: StartCapture }
  /** The work tree as iteration `iteration` left it (0: before the loop), on `refs/ralph/<loop>/<n>`; never throws. */
  checkpoint: {
    ask: { loop: Loop; iteration: number }
    result: { made: Checkpoint } | { notGit: true } | { problem: string }
  }
  /**
   * The loop's checkpoints, oldest first (none: not a git repository, or none made yet); a listing
   * git fails throws a CheckpointListError.
   */
  checkpoints: { ask: { loop: Loop }; result: Checkpoint[] }
  /**
   * A rollback's first write: the work tree now, saved as the loop's next checkpoint (undefined: not
   * a git repository); a listing git fails throws a CheckpointListError.
   */
  "checkpoint-save": { ask: { loop: Loop }; result: Checkpoint | undefined }
  /** A rollback: checkpoint `target`'s files written into the work tree, which is `present` now; what changed. */
  "checkpoint-restore": { ask: { loop: Loop; present: Checkpoint; target: Checkpoint }; result: TreeChange[] }
  /** autoCommit: the loop's changed files committed on the user's branch. */
  "commit-story": { ask: { loop: Loop; message: string }; result: StoryCommit }
  /**
   * --story: the loop's changed files (the plan file aside) committed on the new branch `branch` from HEAD, nothing of
   * the user's touched.
   */
  "story-branch": { ask: { loop: Loop; branch: string; message: string }; result: StoryCommit }
  "run-checks": { ask: { loop: Loop }; result: CheckResult[] }
  /**
   * The guard's read for a claim of done: the loop's diff from its start checkpoint to the work tree
   * now (`at`: as the turn end's checkpoint holds it), and the texts its scan needs; a git failure throws.
   */
  "guard-read": { ask: { loop: Loop; at?: string | undefined }; result: GuardRead }
  /**
   * The diff of what the loop changed since it began, for its reviewer ("": none, or not git; `unknown`: git failed).
   */
  "loop-diff": { ask: { loop: Loop }; result: string | { unknown: string } }
  /** OpenCode's default and small model ("provider/model"), as configured. */
  "default-models": { ask: object; result: { model?: string | undefined; small?: string | undefined } }
  /** A prompt to a review session, answered in full: the reply's text. */
  "review-ask": { ask: { sessionID: string; input: PromptInput }; result: string }
  /** The state file is still what this process wrote (else it is restored, and the problem returned). */
  "verify-state": { ask: { loop: Loop }; result: StoreProblem | undefined }
  /** The loop's state as it is now has reached disk. */
  persisted: { ask: { loop: Loop }; result: void }
  "write-summary": { ask: { record: SummaryRecord }; result: string }
  "read-summary": { ask: { loop: Loop; sessionID: string }; result: string | undefined }
  "write-transcript": { ask: { loop: Loop; sessionID: string; messages: MessageWithParts[] }; result: void }
  /** The plugin's record of a plan loop's stories, written into its plan file. */
  "write-plan": { ask: { loop: Loop }; result: { changed: string[] } | { problem: string } }
  /** A plan file read and checked (for /ralph-plan). */
  "read-plan": { ask: { path: string }; result: PlanFileRead }
  "append-progress": { ask: { entry: ProgressEntry }; result: void }
  /** The progress log's text (undefined: there is none yet). */
  "read-progress": { ask: object; result: string | undefined }
  /** A prompt outside any loop (/ralph-plan asking again). */
  ask: { ask: { sessionID: string; text: string }; result: void }
  /** The project memory as it is on disk (empty when it cannot be read). */
  memory: { ask: object; result: MemoryFile }
  /** Adds entries to the project memory (deduplicated, pruned beyond `maxEntries`). */
  remember: { ask: { items: RememberItem[]; maxEntries: number }; result: void }
  /** A loop ended: its staged notes become memory (it completed) or stay, marked unverified. */
  "settle-staged": { ask: { loopID: string; completed: boolean; maxEntries: number }; result: void }
  // The continuations outside /ralph (sessions without a loop).
  /** The session as OpenCode has it (its parentID says whether it is a subagent's). */
  session: { ask: { sessionID: string }; result: Session }
  /** Sends a continuation prompt to a session without a loop. */
  continue: {
    ask: { sessionID: string; feature: "todo-continuation" | "auto-continue"; input: PromptInput }
    result: void
  }
  /** A fingerprint of the project's work tree (undefined: not a git repository). */
  fingerprint: { ask: object; result: string | undefined }
  /** The checks the project's files and installed tools suggest (detect-checks.ts). */
  "detect-checks": { ask: object; result: CheckConfig[] }
  /** auto-continue's fast checks, run for a session without a loop. */
  "auto-checks": { ask: { sessionID: string; checks: readonly CheckConfig[] }; result: CheckResult[] }
  /** A desktop notification and the webhook's POST (notify.*); what failed comes back, for the log. */
  "send-notification": { ask: { notification: Notification }; result: { problems: string[] } }
  // Worktree loops and parallel plan runs (the main instance's side: src/worktrees/AGENTS.md).
  /** Waits until the lock is this job's (it lets go when the job ends: `locked`). */
  lock: { ask: { lock: JobLock }; result: void }
  /**
   * The project's worktree loops, from their files, as the `launcher` asking sees them (its own launches are not cut).
   */
  worktrees: { ask: { launcher: Launcher }; result: WorktreeEntry[] }
  /**
   * Makes the worktree and its branch, its config and worktree.json, and a session there (a failure after the worktree
   * exists is recorded in it).
   */
  "worktree-launch": {
    ask: { state: Omit<WorktreeState, "base">; withChanges: boolean; title: string }
    result: WorktreeStarted
  }
  /**
   * A worktree a start that did not finish left (`leftByFailedStart`) removed with its branch, once git shows nothing
   * of anyone's is in it; else why not.
   */
  "worktree-reclaim": {
    ask: { name: string; path: string; base: string | undefined }
    result: { ok: true } | { ok: false; why: string }
  }
  /**
   * A call into the worktree's directory, which starts its OpenCode instance (and so its loop) after a restart; a
   * failure is logged, never thrown.
   */
  "worktree-wake": { ask: { path: string }; result: void }
  /** `/ralph -- <task>` in the worktree's session; done when its first turn has ended (or the call failed: why). */
  "worktree-command": { ask: { path: string; sessionID: string; task: string }; result: { failure?: string } }
  /** The loop's work committed on its branch (its own files aside); the commit, undefined when nothing changed. */
  "worktree-commit": { ask: { path: string; message: string }; result: string | undefined }
  /** What the merge plan needs to know of the user's branch and the loop's. */
  "worktree-merge-facts": { ask: { state: WorktreeState }; result: MergeFacts }
  /** The loop's branch into the user's: a fast-forward or a merge commit. */
  "worktree-merge": { ask: { state: WorktreeState; how: "fast-forward" | "merge"; message: string }; result: void }
  /** The worktree's instance ends and its loop's files go to a fresh `merged/<NAME>/`; the archive's path. */
  "worktree-archive": { ask: { name: string; path: string }; result: string }
  /** The worktree folder and its merged branch removed; what failed, and whether the folder is gone all the same. */
  "worktree-remove": {
    ask: { name: string; path: string }
    result: { removed: true } | { problem: string; folderGone: boolean }
  }
  /** worktree.json written in `directory` (the worktree, or its archive). */
  "worktree-record": { ask: { directory: string; state: WorktreeState }; result: void }
  /** Where a parallel run's story worktree `name` is now: settled, running, or absent. */
  "story-worktree": { ask: { name: string; run: ParallelRun }; result: StoryWorktree }
  /** The parallel run under way (parallel.json), if any. */
  "parallel-run": { ask: object; result: ParallelRun | undefined }
  /** The run's record written (undefined: removed, the run is over). */
  "parallel-record": { ask: { run: ParallelRun | undefined }; result: void }
  /** A parallel run's stories done, written into its plan file. */
  "parallel-mark": { ask: { plan: PlanState }; result: { changed: string[] } | { problem: string } }
  // Instant effects: done at once, nothing can happen in between.
  toast: { ask: { notice: Notice }; result: void }
  log: { ask: { level: LogLevel; message: string; extra?: Record<string, unknown>; cause?: unknown }; result: void }
  /** A named point of the loop's work, where the e2e tests can kill OpenCode. */
  reached: { ask: { point: CrashPoint }; result: void }
  /** Wakes the loop at `until` (replacing an earlier wake-up). */
  schedule: { ask: { loop: Loop; until: number }; result: void }
  /** Starts another job beside this one. */
  spawn: { ask: { label: string; job: Job }; result: void }
}

export type EffectKind = keyof Effects
export type Effect =
  | { [K in EffectKind]: { kind: K } & Effects[K]["ask"] }[EffectKind]
  | { kind: "all"; effects: readonly Effect[] }
export type ResultOf<E extends Effect> = E extends { kind: EffectKind } ? Effects[E["kind"]]["result"] : unknown[]

export const INSTANT: ReadonlySet<Effect["kind"]> = new Set(["toast", "log", "reached", "schedule", "spawn"])

export type Job<T = void> = Generator<Effect, T, unknown>

/** `const messages = yield* io({ kind: "messages", sessionID })` */
export function* io<E extends Effect>(effect: E): Job<ResultOf<E>> {
  return (yield effect) as ResultOf<E>
}

/** Several effects at once (production runs them side by side); their results in order. */
export function* all<const T extends readonly Effect[]>(
  ...effects: T
): Job<{ -readonly [I in keyof T]: T[I] extends Effect ? ResultOf<T[I]> : never }> {
  return (yield { kind: "all", effects }) as { -readonly [I in keyof T]: T[I] extends Effect ? ResultOf<T[I]> : never }
}

export function* notify(notice: Notice | undefined): Job {
  if (notice) yield { kind: "toast", notice }
}

export function* log(level: LogLevel, message: string, extra?: Record<string, unknown>): Job {
  yield { kind: "log", level, message, ...(extra ? { extra } : {}) }
}

export function* reached(point: CrashPoint): Job {
  yield { kind: "reached", point }
}
