// The two trees of a replay as its plan reads them (issue 46): only the files that differ, from one
// raw tree diff of two commits the plugin made itself (the start checkpoint and the claim's) —
// recursive, without rename detection (a rename is a file deleted and one added) and without
// textconv: the diff only says which paths differ, the plan (plan.ts) classifies the start's paths
// itself. Which words of a check's command are files of the start's tree is one batch question to
// git, and a file's text is read by its path in a tree. Linear in the files that differ, not in
// the project's.
import { gitText } from "../git/run.js"
import type { TreeEntry } from "./plan.js"

/** The files that differ between two trees, as each has them (a file only one side has is absent from the other). */
export interface TreeDiff {
  start: Map<string, TreeEntry>
  end: Map<string, TreeEntry>
}

/** git's mode of a side that has no file. */
const ABSENT = "000000"

/** The files that differ between `from` and `to` (trees, `<commit>:<prefix>` or ids), paths relative to them. */
export async function treeDiff(directory: string, from: string, to: string): Promise<TreeDiff> {
  const args = ["diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-textconv", "--no-ext-diff", "--no-abbrev"]
  const fields = (await gitText(directory, [...args, from, to])).split("\0")
  const diff: TreeDiff = { start: new Map(), end: new Map() }
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [fromMode = "", toMode = "", fromOid = "", toOid = ""] = (fields[i] ?? "").slice(1).split(" ")
    const path = fields[i + 1] ?? ""
    if (fromMode !== ABSENT) diff.start.set(path, { mode: fromMode, oid: fromOid })
    if (toMode !== ABSENT) diff.end.set(path, { mode: toMode, oid: toOid })
  }
  return diff
}

/** Which of `paths` are files of the tree `rev` (`<commit>:<prefix>`), in one `cat-file --batch-check`. */
export function filesOfTree(directory: string, rev: string) {
  return async (paths: readonly string[]): Promise<Set<string>> => {
    const input = paths.map((path) => `${rev}${path}\n`).join("")
    const lines = (await gitText(directory, ["cat-file", "--batch-check"], { input })).split("\n")
    // A blob is a file (or a link); a submodule, a folder or a missing path is none.
    return new Set(paths.filter((_, i) => lines[i]?.split(" ")[1] === "blob"))
  }
}

/** A file's text at `rev:path` (`rev` ends with the prefix: `<commit>:` or `<commit>:sub/`); undefined when none. */
export const textAt = (directory: string, rev: string, path: string): Promise<string | undefined> =>
  gitText(directory, ["cat-file", "blob", `${rev}${path}`]).catch(() => undefined)
