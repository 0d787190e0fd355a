// What `plan merge` says of each merged story's evidence (issue 39): the record the loop that did the
// story kept when it marked it done — a `ralph-loop run --story` loop in the project's own loop
// files, or a parallel run's worktree loop archived under .opencode/ralph-loop/merged/<NAME>/. The
// newest loop that marked the story done wins. Read-only; a file that cannot be read is passed by.
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { evidenceVerdict } from "../evidence/guard-summary.js"
import type { Evidence } from "../evidence/record.js"
import { STATE_DIR } from "../project/own-files.js"
import { parseStatusLoop } from "../status/status-loop.js"
import { readLoopsSync } from "../store/saved-loops.js"
import { MERGED_DIR } from "../worktrees/worktree-archive.js"

/** Each story's evidence, by its id, from the loops of the project and its archived worktree loops. */
export function storiesEvidence(project: string): Map<string, Evidence> {
  let archives: string[]
  try {
    archives = readdirSync(join(project, MERGED_DIR)).map((name) => join(project, MERGED_DIR, name))
  } catch {
    archives = []
  }
  const saved = [project, ...archives]
    .flatMap((dir) => readLoopsSync(join(dir, STATE_DIR, "loops"), parseStatusLoop))
    .sort((a, b) => a.savedAt - b.savedAt)
  const found = new Map<string, Evidence>()
  for (const { loop } of saved)
    for (const done of loop.plan?.done ?? []) if (done.evidence) found.set(done.id, done.evidence)
  return found
}

/** `story s1: verified — unit 3 passed`, or not verified and why, with each check's exit code. */
export function storyEvidenceLine(story: string, evidence: Evidence): string {
  const checks = evidence.checks.map((c) => `${c.name} exit ${c.exitCode ?? "none"}`).join(", ")
  const detail = !evidence.verified && checks ? ` (${checks})` : ""
  return `story ${story}: ${evidenceVerdict(evidence)}${detail}`
}
