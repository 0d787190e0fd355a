// The review setting, resolved: `false` (off), `true` (on, with the defaults) or an object of options
// (on). A loop keeps the value it started with, as with every setting.
import type { Settings } from "../config/schema.js"

export interface ReviewOptions {
  model?: string | undefined
  agent?: string | undefined
  maxDiffChars: number
  maxRejections: number
  keep: boolean
}

/** The read-only agent the plugin defines (config hook) for reviews that name no agent. */
export const REVIEW_AGENT = "ralph-review"

export const REVIEW_DEFAULTS: ReviewOptions = { maxDiffChars: 60_000, maxRejections: 3, keep: false }

export const reviewOn = (settings: Pick<Settings, "review">): boolean => settings.review !== false

/** The review's options (undefined: review is off). */
export function reviewOptions(settings: Pick<Settings, "review">): ReviewOptions | undefined {
  const { review } = settings
  if (review === false) return undefined
  return review === true ? REVIEW_DEFAULTS : { ...REVIEW_DEFAULTS, ...review }
}

/** `/ralph --review` turns review on and keeps the options the configuration gives it. */
export function withReviewFlag(
  configured: Settings["review"],
  flag: Settings["review"] | undefined,
): Settings["review"] {
  if (flag === undefined) return configured
  return flag === true && typeof configured === "object" ? configured : flag
}
