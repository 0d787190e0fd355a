// What `ralph-loop clean` may remove, and the removal itself. A path goes only when, with every
// symlink on its way resolved, it lies inside one of the plugin's own folders — the project's
// `.opencode/` and the summaryPath the project's settings name (never one a state file names) —
// and it is never followed: a link is removed as a link. Each removal is checked afterwards, so what
// is said removed is gone. The removal itself is asynchronous: clean also runs inside OpenCode.
import { realpathSync } from "node:fs"
import { lstat, readdir, rmdir, unlink } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import { isInside, isStrictlyInside } from "../project/inside.js"
import { OPENCODE_DIR } from "../project/own-files.js"
import { diskUsageOf } from "./disk-usage.js"

/** The plugin's own folders in `project`, as real paths (none when the project cannot be resolved). */
export function ownRoots(project: string, summaryPath: string): string[] {
  let real: string
  try {
    real = realpathSync(project)
  } catch {
    return []
  }
  const opencode = join(real, OPENCODE_DIR)
  const summaries = resolve(real, summaryPath)
  return isStrictlyInside(real, summaries) && !isInside(opencode, summaries) ? [opencode, summaries] : [opencode]
}

/**
 * `path` with the symlinks of its folders resolved (its own last step not followed); undefined when its folder is gone.
 */
function realOf(path: string): string | undefined {
  try {
    return join(realpathSync(dirname(path)), basename(path))
  } catch {
    return undefined
  }
}

/** Whether `path`, its symlinks resolved (`follow`: its own too), lies inside one of `roots`. */
export function provedOwn(roots: readonly string[], path: string, follow = false): boolean {
  let real: string | undefined
  try {
    real = follow ? realpathSync(path) : realOf(path)
  } catch {
    real = undefined
  }
  return real !== undefined && roots.some((root) => isStrictlyInside(root, real))
}

export type Removal =
  | { status: "removed"; freed: number }
  /** Nothing was there. */
  | { status: "gone"; freed: 0 }
  /** Not the plugin's to remove: left alone. */
  | { status: "refused"; freed: 0; reason: string }
  /** Still there (some of it may have gone: `freed`). */
  | { status: "failed"; freed: number; reason: string }

const exists = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  )

export async function removeOwn(roots: readonly string[], path: string): Promise<Removal> {
  const real = realOf(path)
  if (real === undefined || !(await exists(real))) return { status: "gone", freed: 0 }
  if (!roots.some((root) => isStrictlyInside(root, real)))
    return { status: "refused", freed: 0, reason: `it is not inside the plugin's own folders (it is ${real})` }
  const before = await diskUsageOf(real)
  const error = await removeTree(real)
  const after = await diskUsageOf(real)
  if (!(await exists(real))) return { status: "removed", freed: before }
  return { status: "failed", freed: before - after, reason: error ?? "it is still there" }
}

/**
 * Removes `path` and, for a folder, everything in it — as much as it can — without following a
 * link (a link is removed as a link). Returns the first failure, in the system's words.
 */
async function removeTree(path: string): Promise<string | undefined> {
  try {
    if (!(await lstat(path)).isDirectory()) {
      await unlink(path)
      return undefined
    }
    let first: string | undefined
    for (const name of await readdir(path)) {
      const failed = await removeTree(join(path, name))
      first ??= failed
    }
    if (first) return first
    await rmdir(path)
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
