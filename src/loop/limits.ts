// The settings a loop starts with, made consistent: it completes on its criteria only when they
// were given as flags of its /ralph; the limit the user set is the limit — an
// explicit iteration limit raises the retry limit with it, an explicit retry limit raises the
// iteration limit (unless both were set; then the smaller wins) — and an exit gate that needs the RALPH_STATUS
// block gets it. Each adjustment comes with a notice for the user.
import type { SettingKey } from "../config/schema.js"
import type { LoopSettings } from "./loop.js"

/** The flags that make a loop's criteria (seed 004): given on /ralph, the loop may complete on them. */
const CRITERIA_FLAGS: readonly SettingKey[] = ["zeroErrors", "zeroWarnings", "zeroSecurity", "testsPass", "checks"]

/** `given`: the settings this /ralph call's flags set. */
export function consistentSettings(settings: LoopSettings, explicit: ReadonlySet<SettingKey>, given: ReadonlySet<SettingKey> = new Set()): { settings: LoopSettings; notices: string[] } {
  const notices: string[] = []
  let next = settings
  if (settings.completeOnCriteria && !CRITERIA_FLAGS.some((key) => given.has(key))) next = { ...next, completeOnCriteria: false }
  if (explicit.has("maxIterations") && !explicit.has("maxRetries") && settings.maxRetries < settings.maxIterations - 1)
    next = { ...next, maxRetries: settings.maxIterations - 1 }
  if (explicit.has("maxRetries") && !explicit.has("maxIterations") && settings.maxIterations < settings.maxRetries + 1)
    next = { ...next, maxIterations: settings.maxRetries + 1 }
  if (settings.exitGate !== "promise" && !settings.statusBlock) {
    next = { ...next, statusBlock: true }
    notices.push(`exitGate "${settings.exitGate}" reads the RALPH_STATUS block, so statusBlock is turned on for this loop`)
  }
  return { settings: next, notices }
}
