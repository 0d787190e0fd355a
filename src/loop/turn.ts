// What the plugin learned about the model turn that just ended: the facts decisions are made on.
// The last one decided on is kept with the loop (its model, agent and text carry over).
import { z } from "zod"
import { opencodeErrorSchema } from "../host/error-schema.js"

export const turnSchema = z.object({
  /** The last assistant message of the turn; absent when the turn produced none. */
  lastAssistantID: z.string().optional(),
  /** The assistant's own text of the turn (no synthetic or ignored parts, no summaries). */
  texts: z.array(z.string()),
  error: opencodeErrorSchema.optional(),
  /** Why the model stopped ("stop", "length", "tool-calls", …) as OpenCode recorded it. */
  finish: z.string().optional(),
  /** The last assistant message was never completed (the turn was cut off). */
  interrupted: z.boolean().optional(),
  /** The turn ended in a compaction (OpenCode summarized the session). */
  compacted: z.boolean().optional(),
  /** The model and agent the turn ran with, for summarize and the next prompt. */
  model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
  agent: z.string().optional(),
  /** The turn's last call of the ralph_done tool: a completion claim, as the promise is. */
  doneCall: z
    .object({ summary: z.string(), evidence: z.array(z.string()), messageID: z.string().optional() })
    .optional(),
})
export type Turn = z.infer<typeof turnSchema>
