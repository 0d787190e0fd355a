// What a decided iteration leaves behind before the loop acts on the decision: the plan file
// rewritten from the plugin's record of its stories (a story the model marked done itself is set
// back), with autoCommit a story's commit, and one entry in the progress log. A loop of one story
// (--story) leaves the plan file alone and commits the story's work on its own branch instead.
import type { Decision } from "../../loop/decide.js"
import type { DiagnosticSnapshot } from "../../checks/diagnostics.js"
import type { Loop } from "../../loop/loop.js"
import { latestCheckRun } from "../../loop/handoff.js"
import type { Turn } from "../../loop/turn.js"
import { learningsIn, type ProgressEntry } from "../../store/progress-entry.js"
import type { Story } from "../../plan/plan.js"
import { storyBranch } from "../../worktrees/story-branch.js"
import { io, log, notify, type Job } from "../effects.js"
import { featureOn } from "../../config/features.js"
import type { JobContext } from "./context.js"

export interface Decided {
  decision: Decision
  turn: Turn
  snapshot: DiagnosticSnapshot | undefined
  /** The story the iteration worked on (read before the decision was recorded). */
  story: Story | undefined
  /** The files changed since the loop began, read while the turn settled (undefined: read here). */
  changedFiles?: string[] | undefined
}

export function* recordIteration(
  ctx: JobContext,
  loop: Loop,
  { decision, turn, snapshot, story, changedFiles }: Decided,
): Job {
  const iteration = loop.iteration
  try {
    if (loop.plan && loop.plan.only === undefined) yield* writePlan(loop)
    const storyDone = story ? loop.plan?.done.find((d) => d.id === story.id && d.iteration === iteration) : undefined
    if (storyDone && story && loop.plan?.only !== undefined) yield* commitStoryBranch(loop, story)
    else if (storyDone && story && loop.settings.autoCommit) yield* commitStory(loop, story)
    if (!featureOn(loop.settings, "progress-log")) return
    const files = changedFiles ?? (yield* io({ kind: "changed-files", loop }))
    // This iteration's run, else the latest before it: an iteration without checks does not clear their failures.
    const run = snapshot ?? latestCheckRun(loop)
    const failingChecks = run
      ? run.checks.filter((c) => c.status !== "passed").map((c) => `${c.name} (${c.status})`)
      : []
    const entry = {
      at: ctx.now(),
      loopID: loop.id,
      task: loop.task,
      iteration,
      story: story && { id: story.id, title: story.title },
      storyDone,
      decision,
      files,
      failingChecks,
      checksRanAt: run?.iteration,
      learnings: learningsIn(turn.texts),
    }
    // A loop that goes on appends beside its next prompt, not before it (a read of the log — the next
    // prompt's excerpt, a handoff — waits for the appends asked before it: ProgressFile); a loop that
    // ends, pauses or waits has its entry on disk before it says so.
    if (decision.type === "restart")
      yield { kind: "spawn", label: `progress entry of ${loop.id}`, job: appendProgress(loop, entry) }
    else yield* appendProgress(loop, entry)
  } catch (error) {
    // The loop goes on without them: they are its record, not its work.
    yield* log("warn", `could not write the plan file or the progress log: ${String(error)}`, { loop: loop.id })
  }
}

function* appendProgress(loop: Loop, entry: ProgressEntry): Job {
  try {
    yield* io({ kind: "append-progress", entry })
  } catch (error) {
    yield* log("warn", `could not write the progress log: ${String(error)}`, { loop: loop.id })
  }
}

/** autoCommit: the story's work on the user's branch; a refusal (a hook, a conflict) is said, and the loop goes on. */
function* commitStory(loop: Loop, story: Story): Job {
  let why: string
  try {
    const made = yield* io({ kind: "commit-story", loop, message: `story ${story.id}: ${story.title}` })
    if ("committed" in made)
      return yield* log("info", "story committed", {
        loop: loop.id,
        story: story.id,
        commit: made.committed,
        files: made.files,
      })
    why = made.skipped
  } catch (error) {
    why = `git commit failed: ${error instanceof Error ? error.message : String(error)}`
  }
  yield* log("warn", `story ${story.id} not committed: ${why}`, { loop: loop.id })
  yield* notify({
    variant: "warning",
    title: `Ralph · story ${story.id} not committed`,
    message: `autoCommit: ${why}. The loop goes on; the checkpoints keep the work.`,
  })
}

/**
 * --story: the story's work on `ralph/story-<id>` from HEAD; a refusal is said (the loop completes all the same: the
 * story is done).
 */
function* commitStoryBranch(loop: Loop, story: Story): Job {
  const branch = storyBranch(story.id, loop.plan?.stories ?? [])
  let why: string
  try {
    const made = yield* io({ kind: "story-branch", loop, branch, message: `story ${story.id}: ${story.title}` })
    if ("committed" in made)
      return yield* log("info", "story committed on its branch", {
        loop: loop.id,
        story: story.id,
        commit: made.committed,
        files: made.files,
      })
    why = made.skipped
  } catch (error) {
    why = `git failed: ${error instanceof Error ? error.message : String(error)}`
  }
  yield* log("warn", `story ${story.id} not committed on ${branch}: ${why}`, { loop: loop.id })
  yield* notify({
    variant: "error",
    title: `Ralph · story ${story.id} not committed`,
    message: `${branch} was not made: ${why}. The story's work is in the work tree, uncommitted.`,
  })
}

function* writePlan(loop: Loop): Job {
  const written = yield* io({ kind: "write-plan", loop })
  if ("problem" in written) {
    yield* log("warn", written.problem, { loop: loop.id })
    return yield* notify({
      variant: "warning",
      title: "Ralph · plan file not updated",
      message: `${written.problem}. The loop keeps its own record of the stories and goes on.`,
    })
  }
  if (written.changed.length > 0)
    yield* log("info", "plan file written from the plugin's record", { loop: loop.id, stories: written.changed })
}
