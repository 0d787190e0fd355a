// The shape of an error OpenCode reports, as the loop saves it with a turn (read by error.ts).
import { z } from "zod"

export const opencodeErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  statusCode: z.number().optional(),
  /** OpenCode's own verdict on whether a retry may help (`isRetryable`). */
  retryable: z.boolean().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** The provider's response body (its start): where `rate_limit_error` or `insufficient_quota` is named. */
  body: z.string().optional(),
})
export type OpencodeError = z.infer<typeof opencodeErrorSchema>
