// Atomic file writes: a temp file beside the target, then rename. A reader (or a crash) sees the
// old file or the new one, never half of one. With `root`, the write must land inside `root` even
// after symlinks are followed (rename replaces a symlinked target; it never writes through it).
// The file replaced keeps its permission bits (a 0600 file may hold secrets). A user's own file
// (editFileAtomic) is edited where its symlink leads, the link kept.
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { chmod, lstat, mkdir, realpath, rename, rm, writeFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { isInside } from "../project/inside.js"

export class OutsideProjectError extends Error {
  override name = "OutsideProjectError"
}

/** Throws unless `target`, with every symlink on its existing part followed, is inside `root`. */
export async function assertInside(root: string, target: string): Promise<void> {
  const realRoot = await realpath(root)
  let existing = target
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing)
  const stat = await lstat(existing)
  // The target file itself may be a symlink: rename replaces the link, so judge its folder.
  const real = await realpath(stat.isSymbolicLink() && existing === target ? dirname(existing) : existing)
  if (!isInside(realRoot, real))
    throw new OutsideProjectError(`refusing to write ${target}: it leads outside ${root} (to ${real})`)
}

/** The temp file of an atomic write that never finished (a crash between write and rename). */
export const isLeftoverTemp = (name: string): boolean => /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/.test(name)

/** `beforeRename` runs between the two steps (fault injection: a crash mid-write). */
export async function writeFileAtomic(
  file: string,
  content: string,
  root?: string,
  beforeRename?: () => void,
): Promise<void> {
  if (root) await assertInside(root, file)
  if (!existsSync(dirname(file))) await mkdir(dirname(file), { recursive: true })
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`)
  const mode = await modeOf(file)
  try {
    // Created with the old file's mode (the umask can only narrow it: never wider, even for a moment), then set to it
    // exactly.
    await writeFile(temp, content, { encoding: "utf8", flag: "wx", ...(mode === undefined ? {} : { mode }) })
    if (mode !== undefined) await chmod(temp, mode)
    beforeRename?.()
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** The permission bits of the regular file at `file` (a symlink itself is not followed), if there is one. */
async function modeOf(file: string): Promise<number | undefined> {
  const stat = await lstat(file).catch(() => undefined)
  return stat?.isFile() ? stat.mode & 0o7777 : undefined
}

/**
 * A user's file (an OpenCode config) rewritten atomically: when it is a symlink, the file it leads
 * to is the one replaced, so the link stays a link; the mode is kept either way.
 */
export async function editFileAtomic(file: string, content: string): Promise<void> {
  const real = await realpath(file).catch(() => file)
  await writeFileAtomic(real, content)
}
