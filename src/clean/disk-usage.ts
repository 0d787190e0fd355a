// Bytes of the files under a folder (symlinks are not followed). Synchronous for the `ralph-loop`
// command's doctor; clean, which also runs inside OpenCode, counts with diskUsageOf (never blocking it).
import { lstatSync, readdirSync, type Stats } from "node:fs"
import { lstat, readdir } from "node:fs/promises"
import { join } from "node:path"

export function diskUsage(path: string): number {
  let stat: Stats
  try {
    stat = lstatSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.size
  return readdirSync(path).reduce((sum, name) => sum + diskUsage(join(path, name)), 0)
}

/** diskUsage without blocking: one folder's entries at a time. */
export async function diskUsageOf(path: string): Promise<number> {
  const stat = await lstat(path).catch(() => undefined)
  if (!stat) return 0
  if (!stat.isDirectory()) return stat.size
  let sum = 0
  for (const name of await readdir(path).catch(() => [] as string[])) sum += await diskUsageOf(join(path, name))
  return sum
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
