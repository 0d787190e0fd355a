// "Inside the project", one rule for every path the plugin writes, protects or accepts from a
// setting. Compared as written: the caller resolves symlinks first where they matter (writes).
import { isAbsolute, relative, resolve, sep } from "node:path"

/** `path` (absolute, or relative to `root`) is `root` itself or lies below it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, resolve(root, path))
  return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

/** Below `root`, and not `root` itself. */
export const isStrictlyInside = (root: string, path: string): boolean =>
  isInside(root, path) && relative(root, resolve(root, path)) !== ""
