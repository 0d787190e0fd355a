// A parallel plan run's files, as the main instance reads and writes them: its record
// `.opencode/ralph-loop/parallel.json`, and where one of its stories' worktrees is now (running in
// `worktrees/<NAME>`, settled there or archived under `merged/<NAME>`, or not there at all).
import { existsSync } from "node:fs"
import { rm } from "node:fs/promises"
import { join } from "node:path"
import type { Loop } from "../loop/loop.js"
import { madeByRun, parallelRunSchema, storyWorktreeName, type ParallelRun } from "./parallel.js"
import { STATE_DIR } from "../project/own-files.js"
import { stageOf } from "./lifecycle.js"
import { worktreePath } from "./names.js"
import type { MergeOutcome, WorktreeState } from "./worktree-state.js"
import { writeFileAtomic } from "../files/atomic.js"
import { readRegularFileSync } from "../files/regular-file.js"
import { readNewestLoops } from "../store/saved-loops.js"
import { readWorktreeState } from "./worktree-file.js"
import type { WorktreeEntry } from "./worktree-loops.js"

export const RUN_FILE = `${STATE_DIR}/parallel.json`
/** Where a merged worktree's loop files are kept (`merged/<NAME>/.opencode/`). */
export const MERGED_DIR = `${STATE_DIR}/merged`

/** A worktree loop whose branch was settled: its worktree.json with the outcome, and its loop. */
export interface SettledWorktree {
  entry: WorktreeEntry
  state: WorktreeState
  /** Its loop (none: it never started there, and the worktree was recorded failed). */
  loop: Loop | undefined
  outcome: MergeOutcome
}

/** The run under way in `directory`, if any (a file that does not parse, or is no regular file, is none). */
export function readParallelRun(directory: string): ParallelRun | undefined {
  const read = readRegularFileSync(join(directory, RUN_FILE))
  if (!read.ok) return undefined
  try {
    const parsed = parallelRunSchema.safeParse(JSON.parse(read.text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** Writes the run's record; undefined removes it (the run is over). */
export async function writeParallelRun(directory: string, run: ParallelRun | undefined): Promise<void> {
  const file = join(directory, RUN_FILE)
  if (run) await writeFileAtomic(file, `${JSON.stringify(run, null, 2)}\n`)
  else await rm(file, { force: true })
}

export type StoryWorktree = { settled: SettledWorktree } | { running: true } | { absent: true }

/**
 * Where the story `running.story` of `run` is: settled (merged and archived, or kept), still running in its worktree
 * (a slot: `running.worktree`), or absent (its launch never happened, or stopped before worktree.json: the run
 * recorded it, then OpenCode stopped). Only this run's own worktree or archive of that story counts — an archive an
 * earlier run left under the same name does not, nor a slot that has gone on to another story.
 */
export async function storyWorktree(
  main: string,
  running: { story: string; worktree: string },
  run: ParallelRun,
): Promise<StoryWorktree> {
  const folder = worktreePath(main, running.worktree)
  const archive = join(main, MERGED_DIR, storyWorktreeName(running.story, run.plan.stories))
  for (const path of [archive, folder]) {
    const state = readWorktreeState(path)
    if (!state || !madeByRun(run, state) || state.story !== running.story) continue
    const [saved] = await readNewestLoops(join(path, STATE_DIR, "loops"), 1)
    if (stageOf({ state, saved }) === "settled" && state.merge) {
      const entry = { name: running.worktree, path, state, saved }
      return { settled: { entry, state, loop: saved?.loop, outcome: state.merge } }
    }
  }
  // A folder without a worktree.json: made, then OpenCode stopped before it was written — its start
  // is taken again (the new start removes it once git shows it holds nothing).
  return existsSync(folder) && readWorktreeState(folder)?.story === running.story ? { running: true } : { absent: true }
}
