// Reading a file the plugin cannot vouch for (a loop's state file, a journal, a plan, worktree.json):
// only a regular file is read. Opening a FIFO for reading waits for a writer forever — OpenCode or
// `ralph-loop` would hang — so the file is opened with O_NONBLOCK (a FIFO opens at once) and its
// type checked on the open descriptor before a byte is read. `follow: false` also refuses a symlink
// (O_NOFOLLOW): the plugin's own files are never links.
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs"
import { type FileHandle, open } from "node:fs/promises"

export type FileText =
  | { ok: true; text: string }
  | { ok: false; reason: "missing" | "not-a-file" | "unreadable"; message: string }

const flags = (follow: boolean): number =>
  constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (follow ? 0 : (constants.O_NOFOLLOW ?? 0))

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return "a FIFO"
  if (stat.isDirectory()) return "a folder"
  if (stat.isSocket()) return "a socket"
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device"
  return "not a regular file"
}

const notAFile = (what: string): FileText => ({
  ok: false,
  reason: "not-a-file",
  message: `is ${what}, not a regular file`,
})

function failure(error: unknown, follow: boolean): FileText {
  const code = (error as NodeJS.ErrnoException).code
  if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, reason: "missing", message: "does not exist" }
  // O_NOFOLLOW on a symlink: ELOOP (Linux, macOS), EMLINK (FreeBSD).
  if (!follow && (code === "ELOOP" || code === "EMLINK")) return notAFile("a symbolic link")
  return {
    ok: false,
    reason: "unreadable",
    message: `could not be read (${code ?? (error instanceof Error ? error.message : String(error))})`,
  }
}

export async function readRegularFile(path: string, { follow = false }: { follow?: boolean } = {}): Promise<FileText> {
  let handle: FileHandle
  try {
    handle = await open(path, flags(follow))
  } catch (error) {
    return failure(error, follow)
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return notAFile(kindOf(stat))
    return { ok: true, text: await handle.readFile("utf8") }
  } catch (error) {
    return failure(error, follow)
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** For the `ralph-loop` command and the few answers that must come at once (never a wait on a FIFO either). */
export function readRegularFileSync(path: string, { follow = false }: { follow?: boolean } = {}): FileText {
  let fd: number
  try {
    fd = openSync(path, flags(follow))
  } catch (error) {
    return failure(error, follow)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) return notAFile(kindOf(stat))
    return { ok: true, text: readFileSync(fd, "utf8") }
  } catch (error) {
    return failure(error, follow)
  } finally {
    closeSync(fd)
  }
}
