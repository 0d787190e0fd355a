// The reads of a replay (issue 46), before anything is made or run: where the project sits in its
// repository, the start checkpoint, the claim's tree, the files that differ (one raw diff-tree,
// tree-diff.ts), which of the commands' words are start files, the plan (plan.ts) with no file kept,
// and the walk of the ignored surface files. They depend on the start checkpoint, the claim's
// checkpoint (`at`) and the checks' commands only, not on the checks' results: a turn's end starts
// them beside its checks (prepared-reads.ts), and the replay (replay-run.ts) then only judges.
// A git failure throws (the replay says it could not run, with the reason).
import { checkpointRef } from "../checkpoints/checkpoints.js"
import { workTreeSnapshot } from "../checkpoints/checkpoint-git.js"
import { gitText } from "../git/run.js"
import { calledFiles } from "./called-files.js"
import { planReplay, type ReplayPlan } from "./plan.js"
import { ignoredSurfaceFiles } from "./replay-tree.js"
import { filesOfTree, textAt, treeDiff, type TreeDiff } from "./tree-diff.js"

export interface ReplayReadInput {
  directory: string
  loopID: string
  /** The work tree at the claim as a commit (the turn end's checkpoint); read now when absent. */
  at: string | undefined
  /** The commands of the checks the replay runs. */
  commands: readonly string[]
}

export interface ReplayRead {
  /** The repository's top folder. */
  top: string
  /** The start checkpoint's commit. */
  from: string
  /** `<commit>:<prefix>` of the start and of the claim. */
  startTree: string
  endTree: string
  diff: TreeDiff
  /** The files the commands call in the start's tree. */
  called: ReadonlySet<string>
  /** The plan with no file kept (a replay that keeps some plans again: that is pure but for merged files). */
  plan: ReplayPlan
  /** The git-ignored surface files of the work tree (as it was when read: not what the checks write later). */
  ignoredSurface: string[]
}

/** What could be read, or why nothing could (the replay could not run). */
export type ReplayReadOutcome = { read: ReplayRead } | { unread: string }

/** A file's text at the start or at the claim (undefined: none, or not text). */
export const readText =
  (directory: string, read: Pick<ReplayRead, "startTree" | "endTree">) => (side: "start" | "end", path: string) =>
    textAt(directory, side === "start" ? read.startTree : read.endTree, path)

/** A promise's outcome, held until it is asked for (a read started early never rejects unheard). */
export const settle = <T>(promise: Promise<T>): Promise<() => T> =>
  promise.then(
    (value) => () => value,
    (error: unknown) => () => {
      throw error
    },
  )

export async function readReplay(input: ReplayReadInput): Promise<ReplayReadOutcome> {
  const { directory, commands } = input
  // The walk of the ignored files is the longest read: it runs beside the others.
  const ignored = settle(ignoredSurfaceFiles(directory))
  const [top, prefix, from] = (
    await gitText(directory, [
      "rev-parse",
      "--show-toplevel",
      "--show-prefix",
      "--verify",
      `${checkpointRef(input.loopID, 0)}^{commit}`,
    ])
  ).split("\n")
  const at = input.at ?? (await workTreeSnapshot(directory))
  if (!top || !from || at === undefined) {
    await ignored
    return { unread: "the project is not in a git repository" }
  }
  const trees = { startTree: `${from}:${prefix ?? ""}`, endTree: `${at.trim()}:${prefix ?? ""}` }
  const text = readText(directory, trees)
  const [diff, called] = await Promise.all([
    treeDiff(directory, trees.startTree, trees.endTree),
    calledFiles({ commands, exists: filesOfTree(directory, trees.startTree), text: (path) => text("start", path) }),
  ])
  const plan = await planReplay({ start: diff.start, end: diff.end, called, commands, text })
  return { read: { top, from, ...trees, diff, called, plan, ignoredSurface: (await ignored)() } }
}
