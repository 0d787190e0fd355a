// The loops ralph-loop keeps on disk for a project (.opencode/ralph-loop/loops/<loopID>.json, the
// state file the README documents): where a test reads how a loop ended and what is still under way.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Loop } from "../../src/loop/loop.js"
import { persistedLoopSchema } from "../../src/store/loop-schema.js"

export const LOOPS_DIR = ".opencode/ralph-loop/loops"

/** Each loop's state as written (the fields only a running process keeps are left out). */
export function savedLoops(projectDir: string): Loop[] {
  const dir = join(projectDir, LOOPS_DIR)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => {
      const data = JSON.parse(readFileSync(join(dir, name), "utf8")) as { loop: Loop }
      // A state file the plugin could not read back (after a restart, for the CLI, for a worktree's
      // merge) is a bug even when the test's own reading of it would pass.
      const error = persistedLoopSchema.safeParse(data).error
      if (error) throw new Error(`${LOOPS_DIR}/${name} fails the plugin's own schema: ${error.message}`)
      return data.loop
    })
}

/** A loop's ralph_report.md: written once the loop has ended, a moment after its end is saved. */
export function reportFile(projectDir: string, loopID: string, summaryPath = ".opencode/sessions"): string {
  return join(projectDir, summaryPath, loopID, "ralph_report.md")
}

/** One line per loop, for a timeout message. */
export function describeLoops(loops: Loop[]): string {
  if (loops.length === 0) return "no loop on disk"
  return loops
    .map(
      (l) =>
        `${l.id}: ${l.phase}${l.stopReason ? ` (${l.stopReason})` : ""}${l.wait ? ` (waiting: ${l.wait.reason})` : ""}, iteration ${l.iteration}, retiring ${l.retiring.length}`,
    )
    .join("; ")
}
