// What `ralph-loop clean` removes of the loops' own files: the files of loops that ended more than
// `days` ago — their state file, the session folders (summaries, transcripts, report) no other loop
// still refers to, and their checkpoint refs —, the files of worktree loops kept in merged/<NAME>/
// (and their refs) once their loop ended that long ago, and damaged state files moved aside that
// long ago. Never a loop not ended: a loop whose state file is damaged (the journal rebuilds it at
// the next start) keeps the folders its journal lines name, and so do the live loops the caller
// runs. Only what lies inside the plugin's own folders is removed (remove-own.ts), and it says what
// it removed and what it could not. Run by the CLI (src/cli/clean.ts) or by the OpenCode that holds
// the project's lease (clean-job.ts).
import { lstat, readdir } from "node:fs/promises"
import { join } from "node:path"
import { removeCheckpoints } from "../checkpoints/checkpoint-git.js"
import { archiveDir, MERGED_DIR } from "../worktrees/worktree-archive.js"
import { STATE_DIR } from "../project/own-files.js"
import { readLoopFiles, type SavedLoopFile } from "../store/saved-loops.js"
import { sessionDir } from "../store/session-files.js"
import { WORKTREE_FILE } from "../worktrees/worktree-state.js"
import { awaitsEndFiles } from "../worktrees/lifecycle.js"
import { endFilesWritten } from "../store/report.js"
import { diskUsageOf, formatBytes } from "./disk-usage.js"
import { ownRoots, provedOwn, removeOwn } from "./remove-own.js"
import { damagedLoopsSessions, type LoopSessions } from "./damaged-loops.js"

export const DEFAULT_DAYS = 30
export const DAY_MS = 24 * 60 * 60 * 1000

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

/** What is cleaned, and what stays whatever its files say. */
export interface CleanLoopsRequest {
  project: string
  days: number
  /** The summaryPath the project's settings name (the plugin's own folder besides .opencode/). */
  summaryPath: string
  /** Loops the caller runs now: their session folders stay, whatever their files say. */
  live?: readonly LoopSessions[]
}

/** The session folders a loop wrote to (its first, every one it went through, its current), as paths. */
function sessionFolders(project: string, loop: LoopSessions): string[] {
  const folders = new Set<string>()
  for (const id of [loop.id, ...loop.lineage, loop.sessionID]) {
    try {
      folders.add(sessionDir(project, loop.settings.summaryPath, id))
    } catch {
      // an id or summaryPath that would lead outside the project: nothing of ours there
    }
  }
  return [...folders]
}

/** Removes what is due; false when something could not be removed (it is named in `out`). */
export async function cleanLoops(
  request: CleanLoopsRequest,
  out: (line: string) => void,
  now = Date.now(),
): Promise<boolean> {
  const { project, days } = request
  const cutoff = now - days * DAY_MS
  const roots = ownRoots(project, request.summaryPath)
  const notes: string[] = []
  let failed = false
  let freed = 0
  /** Removes `path` if it is the plugin's; true when it is gone. */
  const remove = async (path: string, what: string): Promise<boolean> => {
    const result = await removeOwn(roots, path)
    freed += result.freed
    if (result.status === "refused") notes.push(`ralph-loop clean: left ${what} ${path} alone: ${result.reason}`)
    if (result.status === "failed") {
      failed = true
      notes.push(`ralph-loop clean: could not remove ${what} ${path}: ${result.reason}`)
    }
    return result.status === "removed" || result.status === "gone"
  }

  /** Removes a loop's checkpoint refs; false (and a note) when git could not list them: its files stay. */
  const refsRemoved = async (loopID: string): Promise<boolean> => {
    try {
      await removeCheckpoints(project, loopID)
      return true
    } catch (error) {
      failed = true
      const why = error instanceof Error ? error.message : String(error)
      const kept = `could not remove the checkpoints of loop ${loopID}, so its files stay for the next clean`
      notes.push(`ralph-loop clean: ${kept}: ${why}`)
      return false
    }
  }

  const loopsDir = join(project, STATE_DIR, "loops")
  let loops = 0
  if (!provedOwn(roots, loopsDir, true)) {
    if (await lstat(loopsDir).catch(() => undefined))
      notes.push(
        `ralph-loop clean: left the loops in ${loopsDir} alone: the folder leads outside the plugin's own folders`,
      )
  } else loops = await cleanLoopsFolder(request, loopsDir, now, { remove, refsRemoved, notes })
  const archives = await cleanArchives(project, roots, cutoff, remove, refsRemoved, notes)

  out(
    `ralph-loop clean: removed the files of ${plural(loops, "loop")} that ended more than ${plural(days, "day")} ` +
      `ago${archives ? ` and of ${plural(archives, "worktree loop")} kept in ${MERGED_DIR}/` : ""} (` +
      `${formatBytes(freed)})`,
  )
  for (const note of notes) out(note)
  const stateDir = join(project, STATE_DIR)
  if (provedOwn(roots, stateDir, true))
    out(`ralph-loop clean: ${STATE_DIR} now uses ${formatBytes(await diskUsageOf(stateDir))}`)
  return !failed
}

/** What removes a path or a loop's refs, and the notes they leave (cleanLoops's). */
interface Removals {
  remove(path: string, what: string): Promise<boolean>
  refsRemoved(loopID: string): Promise<boolean>
  notes: string[]
}

const ENDING = "it ended moments ago and OpenCode is still writing its report"

/** The due loops' files in the loops folder (proved the plugin's own); how many loops went. */
async function cleanLoopsFolder(
  request: CleanLoopsRequest,
  loopsDir: string,
  now: number,
  { remove, refsRemoved, notes }: Removals,
): Promise<number> {
  const { project } = request
  const cutoff = now - request.days * DAY_MS
  let loops = 0
  const { loops: saved, aside, unreadable } = await readLoopFiles(loopsDir)
  const old = (s: SavedLoopFile) => s.loop.phase === "stopped" && s.savedAt < cutoff
  // Ended moments ago (--days 0): the OpenCode that ended it may still be writing its report there.
  const ending = new Set(saved.filter((s) => old(s) && awaitsEndFiles(endFilesWritten(project, s), s.savedAt, now)))
  for (const s of ending) notes.push(`ralph-loop clean: kept the files of loop ${s.loop.id}: ${ENDING}`)
  const due = (s: SavedLoopFile) => old(s) && !ending.has(s)
  // A folder another loop still refers to (a newer loop started in the same session, a loop whose
  // file is damaged, a loop the caller runs) stays.
  const files = unreadable.map((u) => u.file)
  const damaged = await damagedLoopsSessions(project, files)
  const keep = [...saved.filter((s) => !due(s)).map((s) => s.loop), ...damaged, ...(request.live ?? [])]
  const inUse = new Set(keep.flatMap((loop) => sessionFolders(project, loop)))
  for (const s of saved.filter(due)) {
    const folders = sessionFolders(project, s.loop).filter((dir) => !inUse.has(dir))
    // Each folder is tried; the state file goes only when they all went (the next clean tries again).
    let gone = true
    for (const dir of folders) gone = (await remove(dir, "the session folder")) && gone
    if (!gone) {
      notes.push(`ralph-loop clean: kept the state file of loop ${s.loop.id}, so that the next clean tries again`)
      continue
    }
    if (!(await refsRemoved(s.loop.id))) continue
    if (await remove(s.file, "the state file")) loops += 1
  }
  for (const entry of aside) if (entry.writtenAt < cutoff) await remove(entry.file, "the damaged state file")
  return loops
}

/**
 * The files of worktree loops kept in merged/<NAME>/, with their checkpoint refs, once every loop
 * in them ended before `cutoff` (an archive without a readable loop: its worktree.json's time).
 * Returns how many archives went.
 */
async function cleanArchives(
  project: string,
  roots: string[],
  cutoff: number,
  remove: (path: string, what: string) => Promise<boolean>,
  refsRemoved: (loopID: string) => Promise<boolean>,
  notes: string[],
): Promise<number> {
  const merged = join(project, MERGED_DIR)
  if (!provedOwn(roots, merged, true)) return 0
  const names = await readdir(merged, { withFileTypes: true }).then(
    (entries) => entries.filter((e) => e.isDirectory()).map((e) => e.name),
    () => [],
  )
  let removed = 0
  for (const name of names.sort()) {
    const archive = archiveDir(project, name)
    // Loops read through a link out of the archive are not its own: their ids name no refs to remove.
    const loopsDir = join(archive, STATE_DIR, "loops")
    const { loops } = provedOwn(roots, loopsDir, true) ? await readLoopFiles(loopsDir) : { loops: [] }
    const worktreeFile = await lstat(join(archive, STATE_DIR, WORKTREE_FILE)).catch(() => undefined)
    const endedAt =
      loops.length > 0
        ? loops.every((s) => s.loop.phase === "stopped")
          ? Math.max(...loops.map((s) => s.savedAt))
          : undefined
        : worktreeFile?.mtimeMs
    if (endedAt === undefined) {
      if (loops.length === 0) notes.push(`ralph-loop clean: kept ${archive}: it holds no loop to tell when it ended`)
      continue
    }
    if (!(endedAt < cutoff)) continue
    let refsGone = true
    for (const { loop } of loops) refsGone = (await refsRemoved(loop.id)) && refsGone
    if (refsGone && (await remove(archive, "the worktree loop's files"))) removed += 1
  }
  return removed
}
