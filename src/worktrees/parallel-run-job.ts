// The steps of /ralph --prd --parallel N, each a job holding ParallelPlan.lock: start a run, a
// story's worktree loop ended (its branch settled, or its loop did not start), and after a restart
// of OpenCode take up what happened meanwhile. A story is done when its work reached the user's
// branch: it is marked done in the plan file (the one record, one writer) before anything that
// depends on it starts. A story is written into the run's record (`parallel.json`) before its
// worktree is made, so a restart between the two finds either its worktree or its absence.
import { randomUUID } from "node:crypto"
import type { Settings } from "../config/schema.js"
import type { WorktreeContext } from "./worktree-context.js"
import { madeByRun, runOver, storiesToStart, storyTask, storyWorktreeName, type ParallelRun } from "./parallel.js"
import type { PlanState, StoryDone } from "../plan/plan.js"
import type { SettledWorktree } from "./parallel-file.js"
import type { WorktreeState } from "./worktree-state.js"
import type { WorktreeEntry } from "./worktree-loops.js"
import { stageOf } from "./lifecycle.js"
import { io, type Job } from "../effects/kernel.js"
import { log } from "../effects/jobs.js"
import { launchWorktree } from "./launch-job.js"
import { cancelStoryLoop } from "./story-cancel.js"
import { reachedBranch } from "./settle-job.js"

export type RunStart = { ok: true; started: string[] } | { ok: false; error: string }
export type StoryEnd = { done: Omit<StoryDone, "id"> } | { failed: string }

/**
 * What a settled worktree makes of its story: done if its work reached the user's branch — with its
 * loop's evidence, which the plan note's words come from (a check scoped to the task's @targets
 * "passes" for the loop with a non-zero exit: its status alone would say "verified").
 */
export function storyEnd({ loop, outcome }: Pick<SettledWorktree, "loop" | "outcome">): StoryEnd {
  if (!reachedBranch(outcome)) return { failed: outcome.detail }
  const checks =
    loop?.snapshots
      .at(-1)
      ?.checks.filter((c) => c.status === "passed")
      .map((c) => c.name) ?? []
  const evidence = loop?.evidence
  return { done: { iteration: loop?.iteration ?? 0, checks, ...(evidence ? { evidence } : {}) } }
}

/** Starts a run: the stories started, or why none could. */
export function* startRun(
  ctx: WorktreeContext,
  plan: PlanState,
  parallel: number,
  fromSession: string,
  overrides: Partial<Settings>,
): Job<RunStart> {
  const under = yield* io({ kind: "parallel-run" })
  if (under)
    return {
      ok: false,
      error:
        `a parallel run of ${under.plan.file} is under way ` +
        `(${under.running.map((r) => r.story).join(", ") || "settling"}); /ralph-status shows it`,
    }
  const run: ParallelRun = {
    id: randomUUID(),
    plan,
    parallel,
    fromSession,
    startedAt: ctx.now(),
    running: [],
    failed: [],
    ...(Object.keys(overrides).length ? { overrides } : {}),
  }
  const { started, full } = yield* startReady(ctx, run)
  if (started.length > 0) return { ok: true, started }
  yield* io({ kind: "parallel-record", run: undefined })
  const why = [...run.failed.map((f) => f.reason), ...(full ? [full] : [])]
  return { ok: false, error: `no story of ${plan.file} could start${why.length ? `: ${why.join("; ")}` : ""}` }
}

/**
 * A worktree loop ended (settled, or it did not start): its story, if it is a running story of
 * this run, is done or failed; and since any worktree loop that ends frees a place under
 * maxParallelLoops, waiting stories start.
 */
export function* storyEnded(ctx: WorktreeContext, state: WorktreeState, end: StoryEnd): Job {
  const run = yield* io({ kind: "parallel-run" })
  if (!run) return
  yield* endStory(run, state, end)
  yield* startReady(ctx, run)
}

/**
 * After a restart of OpenCode: a story whose worktree was settled while the run did not hear of it
 * (the stop came between the two) is taken as settled now — only from this run's own record — and
 * a story recorded as starting whose worktree was never made starts again.
 */
export function* reconcileRun(ctx: WorktreeContext): Job {
  const run = yield* io({ kind: "parallel-run" })
  if (!run) return
  let changed = false
  for (const { story, worktree } of [...run.running]) {
    const found = yield* io({ kind: "story-worktree", story, worktree, run })
    if ("settled" in found && found.settled.state.story === story) {
      yield* endStory(run, found.settled.state, storyEnd(found.settled))
      changed = true
    } else if ("absent" in found) {
      run.running = run.running.filter((r) => r.story !== story)
      changed = true
    }
  }
  // A run over whose end a restart cut off (its slots not all removed, its record still there) ends now.
  if (changed || runOver(run)) yield* startReady(ctx, run)
}

/**
 * The run is cancelled (`via`: who asked): no story starts any more; each running story's slot is told (its
 * worktree.json: a `/ralph` not yet run there starts no loop) and its loop, if it runs, is cancelled there — it ends
 * as any loop does, its work committed on its branch when its slot settles it. The run ends when none runs: its
 * slots are removed then. How many stories were running, or undefined when no run is under way.
 */
export function* cancelRun(ctx: WorktreeContext, via: string): Job<{ running: number } | undefined> {
  const run = yield* io({ kind: "parallel-run" })
  if (!run) return undefined
  run.cancelled ??= via
  yield* io({ kind: "parallel-record", run })
  const worktrees = yield* io({ kind: "worktrees", launcher: ctx.launcher })
  for (const { story, worktree } of run.running) {
    const entry = worktrees.find((w) => w.name === worktree && w.state?.story === story)
    if (!entry?.state || entry.state.merge) continue
    yield* io({ kind: "worktree-record", directory: entry.path, state: { ...entry.state, cancelled: via } })
    if (entry.saved && entry.saved.loop.phase !== "stopped") yield* cancelStoryLoop(entry.path, story, via)
  }
  yield* saveRun(ctx, run)
  return { running: run.running.length }
}

/** A running story of this run has ended, done (marked in the plan file) or failed. */
function* endStory(run: ParallelRun, state: WorktreeState, end: StoryEnd): Job {
  const story = state.story
  if (!story || !madeByRun(run, state) || !run.running.some((r) => r.story === story && r.worktree === state.name))
    return
  run.running = run.running.filter((r) => r.story !== story)
  if ("failed" in end) {
    run.failed.push({ story, reason: end.failed })
    return
  }
  if (!run.plan.done.some((d) => d.id === story))
    run.plan = { ...run.plan, done: [...run.plan.done, { id: story, ...end.done }] }
  const marked = yield* io({ kind: "parallel-mark", plan: run.plan })
  if ("problem" in marked)
    yield* log("warn", `could not mark story ${story} done in ${run.plan.file}: ${marked.problem}`)
}

/**
 * Starts the stories that can start. One refused because maxParallelLoops worktree loops run
 * (others than this run's) stays pending, and so do the rest: `full` says why.
 */
function* startReady(ctx: WorktreeContext, run: ParallelRun): Job<{ started: string[]; full?: string }> {
  const overrides = (run.overrides ?? {}) as Partial<Settings>
  const settings = { ...ctx.settings.current, ...overrides }
  const started: string[] = []
  let full: string | undefined
  // Slots that could not take a story in this step (a folder a cut start left that holds work): passed over.
  const passedOver = new Set<string>()
  // A story that could not start leaves its place to the next: look again until none starts.
  for (
    let ready = storiesToStart(run, settings.maxParallelLoops);
    ready.length > 0 && !full;
    ready = storiesToStart(run, settings.maxParallelLoops)
  ) {
    for (const story of ready) {
      const checks = [...settings.checks, ...story.checks]
      // Fast-forward cannot take two branches from one start: a parallel run merges (unless told none).
      const mergeStrategy = settings.mergeStrategy === "none" ? "none" : "merge"
      const name = storyWorktreeName(story.id, run.plan.stories)
      const slot = yield* slotFor(ctx, run, passedOver)
      run.running.push({ story: story.id, worktree: slot.name })
      yield* io({ kind: "parallel-record", run })
      // A story ends on its claim, as in a plan loop: checks that pass are not the story done.
      const launched = yield* launchWorktree(ctx, run.fromSession, {
        task: storyTask(run.plan, story),
        overrides: { ...overrides, mergeStrategy, completeOnCriteria: false, ...(checks.length ? { checks } : {}) },
        request: { name, withChanges: false },
        story: story.id,
        ...(run.id ? { run: run.id } : {}),
        slot,
      })
      if (launched.ok) {
        started.push(story.id)
        continue
      }
      run.running = run.running.filter((r) => r.story !== story.id)
      // The slot could not be reset, and is retired (or a folder a cut start left holds work, and is kept): the
      // story is still to start, in another slot.
      if (launched.slotRetired) {
        passedOver.add(slot.name)
        yield* log("warn", `story ${story.id} goes to another slot: ${launched.error}`)
        continue
      }
      if (launched.full) {
        full = launched.error
        yield* log("info", `story ${story.id} waits for a place: ${launched.error}`)
        break
      }
      run.failed.push({ story: story.id, reason: launched.error })
      yield* log("warn", `story ${story.id} could not start: ${launched.error}`, { plan: run.plan.file })
    }
  }
  yield* saveRun(ctx, run)
  return full ? { started, full } : { started }
}

/**
 * The slot the next story runs in: a slot of this run that is free (its last story settled, not retired), else a
 * new one: under the name of a slot folder a cut start left (made, then OpenCode stopped before its worktree.json was
 * written; the launch removes it once git shows it holds nothing), or the first name `slot-<k>` no worktree has.
 */
function* slotFor(
  ctx: WorktreeContext,
  run: ParallelRun,
  passedOver: ReadonlySet<string>,
): Job<{ name: string; path?: string }> {
  const worktrees = yield* io({ kind: "worktrees", launcher: ctx.launcher })
  const busy = new Set([...run.running.map((r) => r.worktree), ...passedOver])
  const free = worktrees.find((w) => !busy.has(w.name) && freeSlot(run, w))
  if (free) return { name: free.name, path: free.path }
  const left = worktrees.find((w) => !busy.has(w.name) && isSlotName(w.name) && !w.state && !w.saved)
  if (left) return { name: left.name }
  const names = new Set(worktrees.map((w) => w.name))
  let k = 1
  while (names.has(`slot-${k}`) || busy.has(`slot-${k}`)) k += 1
  return { name: `slot-${k}` }
}

const isSlotName = (name: string): boolean => name.startsWith("slot-") && /^[0-9]+$/.test(name.slice("slot-".length))

/** A slot of this run between two stories: its last story settled there, and it is not retired. */
const freeSlot = (run: ParallelRun, entry: WorktreeEntry): boolean =>
  entry.state?.slot === true &&
  madeByRun(run, entry.state) &&
  entry.state.retired === undefined &&
  stageOf(entry) === "settled"

/** The run is over: its free slots go (their instances end), so nothing of it outlives it but branches and archives. */
function* removeSlots(ctx: WorktreeContext, run: ParallelRun): Job {
  const worktrees = yield* io({ kind: "worktrees", launcher: ctx.launcher })
  for (const slot of worktrees.filter((w) => freeSlot(run, w))) {
    // Its last story's branch is left first: deleted when merged (a start that failed left it empty), else kept.
    const branch = slot.state?.branch
    if (branch)
      try {
        yield* io({ kind: "slot-park", name: slot.name, path: slot.path, branch })
      } catch (error) {
        yield* log("warn", `slot ${slot.name}: the branch ${branch} is kept: ${String(error)}`, { worktree: slot.path })
      }
    const removed = yield* io({ kind: "slot-remove", name: slot.name, path: slot.path })
    if (!("removed" in removed))
      yield* log("warn", `slot ${slot.name} is kept: ${removed.problem}; ralph-loop clean removes it`, {
        worktree: slot.path,
      })
  }
}

function* saveRun(ctx: WorktreeContext, run: ParallelRun): Job {
  if (!runOver(run)) return yield* io({ kind: "parallel-record", run })
  yield* removeSlots(ctx, run)
  yield* io({ kind: "parallel-record", run: undefined })
  const failed = run.failed.map((f) => [f.story, f.reason] as const)
  const left = run.plan.stories.length - run.plan.done.length
  if (run.cancelled !== undefined)
    yield {
      kind: "toast",
      notice: {
        variant: "warning",
        title: "Ralph · plan cancelled",
        message:
          `The parallel run of ${run.plan.file} was cancelled (${run.cancelled}): ${run.plan.done.length} of ` +
          `${run.plan.stories.length} stories done; the others' work is on their branches (ralph-loop worktrees).`,
        duration: 20_000,
      },
    }
  else if (left === 0)
    yield {
      kind: "toast",
      notice: {
        variant: "success",
        title: "Ralph · plan done",
        message: `Every story of ${run.plan.file} is done and merged (${run.plan.stories.length}).`,
      },
    }
  else
    yield {
      kind: "toast",
      notice: {
        variant: "warning",
        title: "Ralph · plan stopped",
        message:
          `${left} of ${run.plan.stories.length} stories of ${run.plan.file} are not ` +
          `done: ${failed.map(([id, why]) => `${id}: ${why}`).join("; ") || "none could start"}.`,
        duration: 20_000,
      },
    }
  yield* log("info", "parallel plan run ended", { plan: run.plan.file, done: run.plan.done.length, failed: run.failed })
}
