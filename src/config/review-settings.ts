// The setting `review`: a second opinion from a fresh session before a loop completes.
import { z } from "zod"

const reviewOptions = z
  .object({
    model: z
      .string()
      .regex(/^[^/\s]+\/\S+$/, 'must be "provider/model"')
      .optional()
      .describe(
        "The reviewer's model, as \"provider/model\" (default: OpenCode's small_model, else the loop session's model).",
      ),
    agent: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .optional()
      .describe("The reviewer's agent (default: ralph-review, a read-only agent the plugin defines)."),
    maxDiffChars: z
      .number()
      .int("must be a whole number")
      .min(1_000, "must be at least 1000")
      .max(1_000_000, "must be at most 1000000")
      .default(60_000)
      .describe("The diff sent to the reviewer is cut at this many characters (the cut is said)."),
    maxRejections: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(20, "must be at most 20")
      .default(3)
      .describe("Rejections in a row that stop the loop (reason review)."),
    keep: z.boolean().default(false).describe("Keep each review session instead of deleting it after its verdict."),
  })
  .strict()

export const reviewSchema = z
  .union([z.boolean(), reviewOptions])
  .describe(
    "A second opinion before a loop completes: once a completion claim passes the checks, a fresh review session " +
      "judges the change (true, or an object of options; /ralph --review).",
  )
