// The project's loops as the TUI shows them: read from their files (src/status/read-project.ts, the
// same reader as `ralph-loop status`), again whenever a loop's files change — fs.watch on the state
// folders, at most once a second, and no timer at all while nothing changes.
import { existsSync, watch, type FSWatcher } from "node:fs"
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { OPENCODE_DIR, STATE_DIR } from "../project/own-files.js"
import { readProjectLoops, type ProjectLoops } from "../status/read-project.js"
import { isLeftoverTemp } from "../files/atomic.js"

/** At most one read of the files per this many milliseconds. */
export const MIN_REFRESH_MS = 1_000
/**
 * A read that found a state file being written (its temp file) reads again — at most this many
 * times in a row: OpenCode's Bun reports a burst of changes once, at its first, so the rename that
 * ends the write may bring no event (docs/opencode-notes.md). A temp file a crash left behind stops
 * costing reads after that.
 */
const WRITE_REREADS = 5

/** `fs.watch`'s shape, so a test can give a watcher that reports a burst once, as Bun's does. */
export type WatchFolder = (folder: string, listener: () => void) => FSWatcher

export interface LoopsWatch {
  /** The newest read (undefined before the first one ends). */
  current(): ProjectLoops | undefined
  /** Reads again now (after an action of the user's: its answer is wanted at once). */
  refresh(): void
  close(): void
}

/**
 * Watches `directory`'s state folder (journal.jsonl is appended at every change of every loop, the
 * state files are renamed into loops/) and each worktree loop's; while the state folder does not
 * exist yet, the nearest folder above it, for its creation. `changed` is called after each read.
 */
export function watchProjectLoops(
  directory: string,
  changed: (loops: ProjectLoops) => void,
  onError: (error: unknown) => void = () => {},
  watchFolder: WatchFolder = (folder, listener) => watch(folder, { persistent: false }, listener),
): LoopsWatch {
  let latest: ProjectLoops | undefined
  let watchers = new Map<string, FSWatcher>()
  let lastRead = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  let reading = false
  let again = false
  let closed = false
  let rereads = 0

  const folders = (loops: ProjectLoops | undefined): string[] => {
    const state = join(directory, STATE_DIR)
    const worktrees = (loops?.loops ?? []).flatMap((l) =>
      l.worktree ? [join(l.worktree.path, STATE_DIR), join(l.worktree.path, STATE_DIR, "loops")] : [],
    )
    // Until the state folder exists, the nearest folder above it (for its creation), never the project's own files.
    if (!existsSync(state))
      return [existsSync(join(directory, OPENCODE_DIR)) ? join(directory, OPENCODE_DIR) : directory]
    return [state, join(state, "loops"), join(state, "worktrees"), ...worktrees]
  }

  // Watches every folder of `folders` that exists; a folder that appears later is picked up at the next read.
  const rearm = () => {
    const next = new Map<string, FSWatcher>()
    for (const folder of folders(latest)) {
      const existing = watchers.get(folder)
      if (existing) {
        next.set(folder, existing)
        continue
      }
      try {
        const watcher = watchFolder(folder, () => schedule())
        watcher.on("error", () => watcher.close())
        next.set(folder, watcher)
      } catch {
        // not there (yet)
      }
    }
    for (const [folder, watcher] of watchers) if (!next.has(folder)) watcher.close()
    watchers = next
  }

  const read = async () => {
    if (closed) return
    if (reading) {
      again = true
      return
    }
    reading = true
    lastRead = Date.now()
    try {
      // A write under way before or after the read may have been read half-done (its old file).
      const before = await writing()
      latest = await readProjectLoops(directory)
      if (!closed) {
        rearm()
        changed(latest)
        if (before || (await writing())) {
          if (rereads++ < WRITE_REREADS) again = true
        } else rereads = 0
      }
    } catch (error) {
      onError(error)
    } finally {
      reading = false
      if (again) {
        again = false
        schedule()
      }
    }
  }

  /** A state file of the project (not of a worktree: its loop's files are rarer) being written now. */
  async function writing(): Promise<boolean> {
    const state = join(directory, STATE_DIR)
    for (const folder of [state, join(state, "loops")])
      if ((await readdir(folder).catch(() => [] as string[])).some(isLeftoverTemp)) return true
    return false
  }

  function schedule() {
    if (closed || timer) return
    const wait = Math.max(0, lastRead + MIN_REFRESH_MS - Date.now())
    timer = setTimeout(() => {
      timer = undefined
      void read()
    }, wait)
  }

  rearm()
  void read()
  return {
    current: () => latest,
    refresh: () => void read(),
    close() {
      closed = true
      if (timer) clearTimeout(timer)
      for (const watcher of watchers.values()) watcher.close()
      watchers.clear()
    },
  }
}
