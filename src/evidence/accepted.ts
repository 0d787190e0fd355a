// An accept of the user's while a loop ran (issue 46), and one refused because a model's shell ran it,
// as the loop's state, the journal and the evidence keep them (acceptance.ts says what they do). Pure.
import { z } from "zod"

export const acceptedSchema = z.object({
  key: z.string(),
  /** When it was accepted (ISO time). */
  at: z.string(),
  /** What accepted it: "ralph-loop accept", "the TUI". */
  via: z.string(),
})
export type Accepted = z.infer<typeof acceptedSchema>

export const refusedAcceptSchema = acceptedSchema.omit({ key: true }).extend({
  keys: z.array(z.string()),
  /** Why it was refused: which model's shell ran it. */
  why: z.string(),
})
export type RefusedAccept = z.infer<typeof refusedAcceptSchema>

/** The refused accepts a loop keeps: the newest. */
export const REFUSED_ACCEPTS_KEPT = 20

/**
 * Set by the plugin in the shell of each command a model runs (src/hooks/shell-env.ts): an accept from
 * there is refused.
 */
export const MODEL_SESSION_ENV = "RALPH_LOOP_MODEL_SESSION"
