// What a loop keeps of its reviews: how many ran, the rejections in a row, what they cost (counted in
// the loop's budgets, shown apart) and the last verdict.
import { z } from "zod"

const count = z.int().min(0)

export const reviewStateSchema = z.object({
  reviews: count,
  /** Rejections since the last approval: `review.maxRejections` of them stop the loop. */
  rejections: count,
  usage: z.object({ tokens: z.number().min(0), cost: z.number().min(0) }),
  last: z.object({ verdict: z.enum(["approve", "reject", "none"]), reasons: z.array(z.string()) }).optional(),
  /** The review session open now (kept on disk: a restart of OpenCode mid-review deletes it at recovery). */
  session: z.string().optional(),
})
export type ReviewState = z.infer<typeof reviewStateSchema>

export const NO_REVIEWS: ReviewState = { reviews: 0, rejections: 0, usage: { tokens: 0, cost: 0 } }
