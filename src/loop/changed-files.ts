// "Files changed since the loop began", on a work tree the user was already changing: the loop is
// credited with what it committed since its start commit and with every file whose content now
// differs from the snapshot taken when it began — not with the user's own uncommitted work it
// left alone. A pre-existing change the loop edited further counts; so does one it reverted.
import { z } from "zod"

/** Content hashes by path (relative to the project); a deleted file is `DELETED`. */
export const fileHashesSchema = z.record(z.string(), z.string())
export type FileHashes = z.infer<typeof fileHashesSchema>

export const DELETED = "-"

/** The work tree when a loop began: HEAD, and the files that differed from it then. */
export interface StartTree {
  head?: string
  files: FileHashes
}

/**
 * `committed`: paths changed by commits since the loop's start commit. `now`: the current hash of
 * every file that differs from HEAD now, and of every file in the snapshot. Without a snapshot
 * (a loop saved by an older version) every changed file counts, as it did then.
 */
export function changedSinceStart(startFiles: FileHashes | undefined, committed: readonly string[], now: FileHashes): string[] {
  const changed = new Set(committed)
  for (const [path, hash] of Object.entries(now)) if (startFiles?.[path] !== hash) changed.add(path)
  return [...changed].sort()
}
