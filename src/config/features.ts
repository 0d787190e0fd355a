// The plugin's behaviours that `disabledFeatures` switches off, one name each (seed 003's
// `disabled_hooks`). A disabled feature does nothing at all — not even the reads it would need.
import type { Settings } from "./schema.js"

export const FEATURES = [
  "todo-continuation",
  "keyword",
  "auto-continue",
  "system-prompt",
  "tool-guard",
  "remember",
  "progress-log",
] as const
export type Feature = (typeof FEATURES)[number]

/** Whether `feature` acts under `settings`: not disabled — and auto-continue only when turned on. */
export function featureOn(settings: Pick<Settings, "disabledFeatures" | "autoContinue">, feature: Feature): boolean {
  if (settings.disabledFeatures.includes(feature)) return false
  return feature !== "auto-continue" || settings.autoContinue
}
