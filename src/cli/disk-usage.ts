// Bytes of the files under a folder (symlinks are not followed).
import { lstatSync, readdirSync, type Stats } from "node:fs"
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

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
