// Seed 001's memory: every failing check becomes a gotcha (title, message, files), kept for the
// loop and shown again to later iterations that work on those files.
import { z } from "zod"
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"

export const gotchaSchema = z.object({
  title: z.string(),
  message: z.string(),
  files: z.array(z.string()),
  iteration: z.int().min(1),
})
export type Gotcha = z.infer<typeof gotchaSchema>

const LIMIT = 20

/** The loop's gotchas after a check run: one per failing check, newest wins for the same title. */
export function learnGotchas(gotchas: readonly Gotcha[], snapshot: DiagnosticSnapshot): Gotcha[] {
  const learned = snapshot.checks
    .filter((c) => c.status !== "passed")
    .map((c) => {
      const lines = c.output.trim().split("\n")
      const first = lines.find((l) => /error|fail|warn/i.test(l)) ?? lines[0] ?? c.status
      return {
        title: `${c.name}: ${first.trim().slice(0, 120)}`,
        message: lines.slice(-6).join("\n").slice(-600),
        files: [...new Set([...c.files.map((f) => f.path), ...(c.mentioned ?? [])])].slice(0, 10),
        iteration: snapshot.iteration,
      }
    })
  const titles = new Set(learned.map((g) => g.title))
  return [...gotchas.filter((g) => !titles.has(g.title)), ...learned].slice(-LIMIT)
}

/** The gotchas that concern `files` (all of them when a gotcha names no file). */
export function gotchasFor(gotchas: readonly Gotcha[], files: readonly string[]): Gotcha[] {
  const touched = new Set(files)
  return gotchas.filter((g) => g.files.length === 0 || g.files.some((f) => touched.has(f)))
}

export const gotchaText = (gotchas: readonly Gotcha[]): string[] =>
  gotchas.map((g) => `${g.title} (iteration ${g.iteration}${g.files.length ? `; ${g.files.join(", ")}` : ""})`)
