// `ralph-loop clean [--days N] [--project DIR]`: removes the files of loops that ended more than N
// days ago (default 30) — their state file, the summaries, transcripts and report in their
// sessions' folders, and their checkpoint refs — and damaged state files moved aside that long ago.
// Never a loop not ended.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { STATE_DIR } from "../store/loop-store.js"
import { persistedLoopSchema } from "../store/loop-schema.js"
import { CHECKPOINT_PREFIX } from "../loop/checkpoints.js"
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
    removeCheckpointRefs(args.project, loop.id)
    loops += 1
  }
  out(`ralph-loop clean: removed the files of ${loops} loop${loops === 1 ? "" : "s"} that ended more than ${days} day${days === 1 ? "" : "s"} ago (${formatBytes(freed)})`)
  const stateDir = join(args.project, STATE_DIR)
  if (existsSync(stateDir)) out(`ralph-loop clean: ${STATE_DIR} now uses ${formatBytes(diskUsage(stateDir))}`)
  return 0
}

/** The loop's checkpoint refs, in one `git update-ref --stdin` (nothing where the project is not a git repository). */
function removeCheckpointRefs(project: string, loopID: string): void {
  try {
    const refs = execFileSync("git", ["for-each-ref", "--format=delete %(refname)", `${CHECKPOINT_PREFIX}${loopID}/`], { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
    if (refs.trim()) execFileSync("git", ["update-ref", "--stdin"], { cwd: project, input: refs, stdio: ["pipe", "ignore", "ignore"] })
  } catch {
    // not a git repository, or git is missing: there are no refs of ours to remove
  }
}

