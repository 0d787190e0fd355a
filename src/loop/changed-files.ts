// "Files changed since the loop began", on a work tree the user was already changing: the loop is
// credited with what it committed since its start commit and with every file whose content now
// differs from the snapshot taken when it began — not with the user's own uncommitted work it
// left alone. A pre-existing change the loop edited further counts; so does one it reverted.
// The snapshot is a git tree of the whole work tree (every file, however many); loops saved by
// older versions kept content hashes of the files dirty at their start instead.
import { z } from "zod"

/** Content hashes by path (relative to the project); a deleted file is `DELETED`. */
export const fileHashesSchema = z.record(z.string(), z.string())
export type FileHashes = z.infer<typeof fileHashesSchema>

export const DELETED = "-"

/** The work tree when a loop began: HEAD, and the whole work tree as a git tree object. */
export interface StartTree {
  head?: string
  tree: string
}

/** What the plugin knows of the work tree at a loop's start. */
export type StartCapture = StartTree | { unknown: string } | undefined

/**
 * `committed`: paths changed by commits since the loop's start commit. `now`: the current hash of
 * every file that differs from HEAD now, and of every file in the snapshot. Without a snapshot
 * (a loop saved by an older version) every changed file counts, as it did then.
 */
export function changedSinceStart(
  startFiles: FileHashes | undefined,
  committed: readonly string[],
  now: FileHashes,
): string[] {
  const changed = new Set(committed)
  for (const [path, hash] of Object.entries(now)) if (startFiles?.[path] !== hash) changed.add(path)
  return [...changed].sort()
}

type StartRecord = {
  startHead?: string | undefined
  startTree?: string | undefined
  startFiles?: FileHashes | undefined
  startUnknown?: string | undefined
}

/** What a loop recorded of its start, as the work-tree comparison takes it. */
export const loopStart = (loop: StartRecord) => ({ head: loop.startHead, tree: loop.startTree, files: loop.startFiles })

/** Why the files a loop changed cannot be told from the user's (nothing is then committed for it). */
export function startUnknown(loop: StartRecord): string | undefined {
  if (loop.startUnknown !== undefined)
    return (
      `the work tree at the loop's start could not be read (${loop.startUnknown}), so which files are the ` +
      `loop's is unknown`
    )
  if (loop.startTree === undefined && loop.startFiles === undefined)
    return "the loop has no record of the work tree at its start, so which files are its own is unknown"
  return undefined
}
