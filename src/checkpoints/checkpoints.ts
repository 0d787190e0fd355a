// A loop's checkpoints: checkpoint 0 is the work tree before the loop, checkpoint N the work tree as
// iteration N left it, each a commit on `refs/ralph/<loop>/<N>`. A rollback first saves the work
// tree as the next number, so numbers run on from there (they are the iterations until a rollback). What
// /ralph-rollback restores, and
// how it says what it did. Pure.

export const CHECKPOINT_PREFIX = "refs/ralph/"

export const checkpointRef = (loopID: string, number: number): string => `${CHECKPOINT_PREFIX}${loopID}/${number}`

export interface Checkpoint {
  ref: string
  number: number
  /** The iteration whose work tree it holds (0: before the loop); undefined: saved by a rollback. */
  iteration?: number | undefined
  commit: string
  /** When it was made (ms). */
  at: number
}

/** A file that differs from one tree to the next: Added, Modified, Deleted (git's letters; T: its type changed). */
export interface TreeChange {
  status: "A" | "M" | "D" | "T"
  path: string
}

/**
 * git could not list the loop's checkpoints. Never read as "none": a save before a rollback would
 * then be numbered 0 and write over the start checkpoint.
 */
export class CheckpointListError extends Error {
  constructor(reason: string) {
    super(`the checkpoints could not be listed (${reason})`)
  }
}

export type RollbackTarget = { ok: true; checkpoint: Checkpoint } | { ok: false; message: string }

/**
 * The checkpoint `/ralph-rollback [N | --to-start]` restores: N, the start for `--to-start`, or by
 * default the iteration before the last one recorded.
 */
export function rollbackTarget(checkpoints: readonly Checkpoint[], args: string): RollbackTarget {
  const names = () => checkpoints.map((c) => c.number).join(", ")
  if (checkpoints.length === 0)
    return {
      ok: false,
      message: "This loop has no checkpoints (the project is not a git repository, or it made none yet).",
    }
  const arg = args.trim()
  if (arg === "--to-start") return find(checkpoints, 0, names)
  if (arg === "") {
    const last = checkpoints.at(-1) as Checkpoint
    const before = [...checkpoints].reverse().find((c) => c.number < last.number)
    return before
      ? { ok: true, checkpoint: before }
      : { ok: false, message: `There is only checkpoint ${last.number}: nothing before it to go back to.` }
  }
  if (!/^\d+$/.test(arg))
    return { ok: false, message: `Usage: /ralph-rollback [N | --to-start] — N is a checkpoint's number (${names()}).` }
  return find(checkpoints, Number(arg), names)
}

function find(checkpoints: readonly Checkpoint[], number: number, names: () => string): RollbackTarget {
  const checkpoint = checkpoints.find((c) => c.number === number)
  return checkpoint
    ? { ok: true, checkpoint }
    : { ok: false, message: `There is no checkpoint ${number}; this loop has ${names()}.` }
}

/** The number the present state is saved under before a rollback: one past the last. */
export const nextCheckpointNumber = (checkpoints: readonly Checkpoint[]): number =>
  (checkpoints.at(-1)?.number ?? -1) + 1

/**
 * The number of the checkpoint iteration `iteration` leaves: the one it already has when it is
 * decided again (after a wait), else its own, unless a rollback took that number already.
 */
export function checkpointNumber(checkpoints: readonly Checkpoint[], iteration: number): number {
  if (iteration === 0) return 0
  const last = checkpoints.at(-1)
  if (last?.iteration === iteration) return last.number
  return Math.max(iteration, nextCheckpointNumber(checkpoints))
}

/** The subject of a checkpoint's commit, which says what it holds. */
export const checkpointSubject = (loopID: string, iteration: number | undefined): string =>
  iteration === undefined ? `ralph-loop ${loopID}: before a rollback` : `ralph-loop ${loopID}: iteration ${iteration}`

/** The iteration a checkpoint's subject names (undefined: a rollback's save). */
export const iterationOf = (subject: string): number | undefined => {
  const match = /: iteration (\d+)$/.exec(subject)
  return match ? Number(match[1]) : undefined
}

/** What a rollback did, for the user: files restored, added back, removed. */
export function rollbackSummary(target: number, saved: number, changes: readonly TreeChange[]): string {
  const list = (status: TreeChange["status"][], label: string) => {
    const paths = changes.filter((c) => status.includes(c.status)).map((c) => c.path)
    return paths.length
      ? [`${label} (${paths.length}): ${paths.slice(0, 20).join(", ")}${paths.length > 20 ? ", …" : ""}`]
      : []
  }
  return [
    changes.length === 0
      ? `The work tree already was as checkpoint ${target} has it.`
      : `The work tree is back at checkpoint ${target}.`,
    ...list(["M", "T"], "Restored"),
    ...list(["A"], "Added back"),
    ...list(["D"], "Removed"),
    `What it was before is checkpoint ${saved}: /ralph-rollback ${saved} undoes this. The loop is paused; ` +
      `/ralph-resume goes on.`,
  ].join("\n")
}

/** The checkpoints in one line, for /ralph-status and the report (empty when there are none). */
export function checkpointsLine(loopID: string, checkpoints: readonly Checkpoint[]): string {
  if (checkpoints.length === 0) return ""
  const numbers = checkpoints.map((c) => c.number)
  return (
    `Checkpoints: ${checkpoints.length} (${numbers.join(", ")}) on ${CHECKPOINT_PREFIX}${loopID}/ — ` +
    `/ralph-rollback [N | --to-start] puts the work tree back`
  )
}
