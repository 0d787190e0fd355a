// The loop's own folder carries a .gitignore of "*".
import { existsSync } from "node:fs"
import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { writeFileAtomic } from "./atomic.js"

/** Git ignores the loop's own files (worktrees included): `git clean -fd` leaves them, and they are not "progress". */
export async function ignoreOwnFolder(directory: string): Promise<void> {
  const file = join(directory, STATE_DIR, ".gitignore")
  if (existsSync(file)) return
  await mkdir(join(directory, STATE_DIR), { recursive: true }).catch(() => undefined)
  await writeFileAtomic(file, "*\n", directory).catch(() => undefined)
}
