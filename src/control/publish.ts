// How a request or a result appears in the control folder: written whole in `control/.tmp/`, then
// renamed in, so the watched folder sees one event — the file arriving, complete. OpenCode runs in
// Bun, whose fs.watch on Linux (1.3.14) reports one event of a burst and drops the destination of a
// rename within the folder (oven-sh/bun#36328): a temp file written beside the target and renamed
// over it may never be seen. A folder watched with Node sees both ways.
import { randomBytes } from "node:crypto"
import { mkdir, rename, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assertInside } from "../files/atomic.js"

/** Where files are written before they are renamed into the control folder (never watched). */
export const TEMP_SUBFOLDER = ".tmp"

/** Writes `folder/name` at once (readers never see half of it); `root`: it must stay inside (no link out). */
export async function publish(root: string, folder: string, name: string, content: string): Promise<void> {
  const temp = join(folder, TEMP_SUBFOLDER)
  await assertInside(root, temp)
  await mkdir(temp, { recursive: true })
  const file = join(temp, `${name}.${process.pid}.${randomBytes(4).toString("hex")}`)
  try {
    await writeFile(file, content, { encoding: "utf8", flag: "wx" })
    await rename(file, join(folder, name))
  } catch (error) {
    await rm(file, { force: true })
    throw error
  }
}
