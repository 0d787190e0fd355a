// The settings a loop starts with, made consistent: the limit the user set is the limit — an
// explicit iteration limit raises the retry limit with it, an explicit retry limit raises the
// iteration limit (unless both were set; then the smaller wins) — and an exit gate that needs the RALPH_STATUS
// block gets it. Each adjustment comes with a notice for the user.
import type { SettingKey } from "../config/schema.js"
import type { LoopSettings } from "./loop.js"

export function consistentSettings(settings: LoopSettings, explicit: ReadonlySet<SettingKey>): { settings: LoopSettings; notices: string[] } {
  const notices: string[] = []
  let next = settings
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
