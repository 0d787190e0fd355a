// The settings a loop starts with, made consistent: an explicit iteration limit is the limit (the
// retry limit rises with it, unless that was set too), and an exit gate that needs the RALPH_STATUS
// block gets it. Each adjustment comes with a notice for the user.
import type { SettingKey } from "../config/schema.js"
import type { LoopSettings } from "./loop.js"

export function consistentSettings(settings: LoopSettings, explicit: ReadonlySet<SettingKey>): { settings: LoopSettings; notices: string[] } {
  const notices: string[] = []
  let next = settings
  if (explicit.has("maxIterations") && !explicit.has("maxRetries") && settings.maxRetries < settings.maxIterations - 1)
    next = { ...next, maxRetries: settings.maxIterations - 1 }
  if (settings.exitGate !== "promise" && !settings.statusBlock) {
    next = { ...next, statusBlock: true }
    notices.push(`exitGate "${settings.exitGate}" reads the RALPH_STATUS block, so statusBlock is turned on for this loop`)
  }
  return { settings: next, notices }
}
