// Progress is measured, not claimed: the work tree changed, or the checks found fewer issues. Words are not progress —
// a model that rewords "still working on it"
// makes none. Only where the work tree cannot be seen (not a git repository) does a reply the model
// has not given before count (digits folded, so "step 4" ≠ progress over "step 3").
import { createHash } from "node:crypto"
import { z } from "zod"

export const progressSchema = z.object({
  /** Fingerprint of the git work tree after the last turn (undefined: not a git repo). */
  workTree: z.string().optional(),
  /** Completed todos of the current session after the last turn. */
  todosCompleted: z.int().min(0),
  todosSession: z.string().optional(),
  /** Normalised hashes of recent assistant outputs. */
  recentOutputs: z.array(z.string()),
})
export type Progress = z.infer<typeof progressSchema>

export interface ProgressSample {
  workTree?: string | undefined
  todosCompleted: number
  /** The session's todos still pending or in progress. */
  openTodos: string[]
  sessionID: string
}

const RECENT = 10

export function outputHash(texts: readonly string[]): string | undefined {
  // Whitespace runs become one space; written so that the many single spaces of prose are not
  // replaced one by one (that took half a second on a 5 MB reply).
  const normal = texts
    .join("\n")
    .toLowerCase()
    .replace(/\d+/g, "#")
    .replace(/\s{2,}|[^\S ]/g, " ")
    .trim()
  return normal ? createHash("sha1").update(normal).digest("hex").slice(0, 16) : undefined
}

/** The work tree differs from the one after the last turn (false where it cannot be seen). */
export const workTreeChanged = (before: Progress, sample: ProgressSample): boolean =>
  sample.workTree !== undefined && before.workTree !== undefined && sample.workTree !== before.workTree

/**
 * A todo the model marks completed is its own word, so it is not progress by itself: it counts only
 * beside a change of the work tree or better checks, which are progress already.
 */
export function measureProgress(
  before: Progress,
  sample: ProgressSample,
  texts: readonly string[],
  checksImproved = false,
): { progress: boolean; next: Progress } {
  const output = outputHash(texts)
  const changed = workTreeChanged(before, sample)
  const newOutput = output !== undefined && !before.recentOutputs.includes(output)
  const next: Progress = {
    workTree: sample.workTree ?? before.workTree,
    todosCompleted: sample.todosCompleted,
    todosSession: sample.sessionID,
    recentOutputs: output ? [...before.recentOutputs, output].slice(-RECENT) : before.recentOutputs,
  }
  const measurable = sample.workTree !== undefined
  return { progress: changed || checksImproved || (!measurable && newOutput), next }
}
