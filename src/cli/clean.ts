// `ralph-loop clean [--days N] [--project DIR]`: removes the files of loops that ended more than N
// days ago (default 30) — their state file, and the summaries, transcripts and report in their
// sessions' folders — and damaged state files moved aside that long ago. Never a loop not ended.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { STATE_DIR } from "../store/loop-store.js"
import { persistedLoopSchema } from "../store/loop-schema.js"
import { sessionDir } from "../store/session-files.js"
import type { CliArgs } from "./args.js"
import { diskUsage, formatBytes } from "./disk-usage.js"

export const DEFAULT_DAYS = 30
const DAY_MS = 24 * 60 * 60 * 1000

export function clean(args: CliArgs, out: (line: string) => void, now = Date.now()): number {
  const days = args.days ?? DEFAULT_DAYS
  const cutoff = now - days * DAY_MS
  const loopsDir = join(args.project, STATE_DIR, "loops")
  const names = existsSync(loopsDir) ? readdirSync(loopsDir) : []
  let loops = 0
  let freed = 0
  const remove = (path: string) => {
    freed += diskUsage(path)
    rmSync(path, { recursive: true, force: true })
  }
  for (const name of names) {
    const file = join(loopsDir, name)
    if (/\.corrupt-/.test(name)) {
      if (statSync(file).mtimeMs < cutoff) remove(file)
      continue
    }
    if (!name.endsWith(".json")) continue
    let parsed
    try {
      parsed = persistedLoopSchema.safeParse(JSON.parse(readFileSync(file, "utf8")))
    } catch {
      continue
    }
    if (!parsed.success) continue
    const { loop, savedAt } = parsed.data
    if (loop.phase !== "stopped" || !(Date.parse(savedAt) < cutoff)) continue
    for (const sessionID of new Set([loop.id, ...loop.lineage, loop.sessionID])) {
      try {
        const dir = sessionDir(args.project, loop.settings.summaryPath, sessionID)
        if (existsSync(dir)) remove(dir)
      } catch {
        // an id or summaryPath that would lead outside the project: nothing of ours there
      }
    }
    remove(file)
    loops += 1
  }
  out(`ralph-loop clean: removed the files of ${loops} loop${loops === 1 ? "" : "s"} that ended more than ${days} day${days === 1 ? "" : "s"} ago (${formatBytes(freed)})`)
  const stateDir = join(args.project, STATE_DIR)
  if (existsSync(stateDir)) out(`ralph-loop clean: ${STATE_DIR} now uses ${formatBytes(diskUsage(stateDir))}`)
  return 0
}
