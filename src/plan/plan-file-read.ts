// A plan file as src/plan/plan-file.ts reads it: parsed, or why not.
import type { ParsedPlan } from "./plan-reader.js"

export type PlanFileRead =
  | { ok: true; file: string; plan: ParsedPlan; text: string }
  /** `problems`: what is wrong inside the file (none when it could not be read at all). */
  | {
      ok: false
      reason: "outside" | "missing" | "unreadable" | "broken"
      file: string
      message: string
      problems: string[]
      text?: string | undefined
    }
