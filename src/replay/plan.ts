// What the replay tree is (issue 46): the end's files, with the start's test surface put back as it
// was (also a file the loop deleted or renamed away), the surface files new in the loop left out,
// and package.json, pyproject.toml and Cargo.toml merged (merge.ts). The surface is classified from
// the start's paths by the runners' conventions (surface.ts) and from what the checks' commands call
// in the start's tree (called-files.ts), never from what a diff says of a file, so a rename, a
// binary-looking file or an index flag cannot hide it. The listings may hold only the files that
// differ (the caller's raw tree diff of the two checkpoint commits, without rename detection: a rename
// is a file deleted, put back, and one added). When nothing is put back, left out or merged, the
// replay is not needed. Pure: the caller lists the trees and reads texts.
import { calledFiles } from "./called-files.js"
import { mergedText } from "./merge.js"
import { MERGED_FILES, surfaceKind } from "./surface.js"

/** A file of a tree: its git mode and object id (any id that changes with the content will do). */
export interface TreeEntry {
  mode: string
  oid: string
}

export type Listing = ReadonlyMap<string, TreeEntry>

export interface ReplayInput {
  /** The start's files: all of them, or at least each one the end does not have the same. */
  start: Listing
  /** The end's files: all of them, or at least each one the start does not have the same. */
  end: Listing
  /** The files the commands call in the start's tree, found by the caller (else in `start`, which lists all then). */
  called?: ReadonlySet<string>
  /** The commands of the checks the replay runs. */
  commands: readonly string[]
  /** A file's text in one of the trees (undefined: none, or not text). */
  text: (side: "start" | "end", path: string) => Promise<string | undefined>
  /** Files the user accepted the loop's change of (a finding accepted by its key): kept as the end has them. */
  keep?: readonly string[]
}

export interface ReplayPlan {
  /** Whether the replay tree differs from the end's tree at all (false: the work tree's run is the replay). */
  needed: boolean
  /** Start files put back as they were (changed, deleted or renamed away by the loop), sorted. */
  putBack: string[]
  /** Surface files new in the loop, left out of the replay tree, sorted. */
  leftOut: string[]
  /** Files merged, with the merged text, sorted by path. */
  merged: { path: string; text: string }[]
}

const sameEntry = (a: TreeEntry | undefined, b: TreeEntry | undefined): boolean =>
  a !== undefined && b !== undefined && a.oid === b.oid && a.mode === b.mode

/** A submodule (a gitlink) is no file of the tree. */
const isFile = (entry: TreeEntry): boolean => entry.mode !== "160000"

export async function planReplay(input: ReplayInput): Promise<ReplayPlan> {
  const { start, end, commands, text, keep = [] } = input
  const startFiles = new Set([...start].filter(([, e]) => isFile(e)).map(([p]) => p))
  const exists = async (paths: readonly string[]) => new Set(paths.filter((path) => startFiles.has(path)))
  const called = input.called ?? (await calledFiles({ commands, exists, text: (path) => text("start", path) }))
  const isStartSurface = (path: string) => called.has(path) || surfaceKind(path) !== undefined
  const putBack: string[] = []
  const merged: { path: string; text: string }[] = []
  for (const path of startFiles) {
    const [was, is] = [start.get(path), end.get(path)]
    if (sameEntry(was, is) || keep.includes(path)) continue
    if (MERGED_FILES.has(path) && !called.has(path)) {
      const joined = await mergeOf(path, is, text)
      if (joined === null) continue
      if (joined !== undefined) {
        merged.push({ path, text: joined })
        continue
      }
    }
    if (isStartSurface(path) || MERGED_FILES.has(path)) putBack.push(path)
  }
  const leftOut = [...end.keys()].filter((path) => !start.has(path) && surfaceKind(path) !== undefined)
  putBack.sort()
  leftOut.sort()
  merged.sort((a, b) => a.path.localeCompare(b.path))
  return { needed: putBack.length + leftOut.length + merged.length > 0, putBack, leftOut, merged }
}

/**
 * A merged file's text: null when its test parts are as at the start (nothing to do), undefined when
 * it cannot be merged (deleted at the end, or unreadable: the start's is put back whole).
 */
async function mergeOf(
  path: string,
  end: TreeEntry | undefined,
  text: ReplayInput["text"],
): Promise<string | null | undefined> {
  if (end === undefined) return undefined
  const [before, after] = await Promise.all([text("start", path), text("end", path)])
  if (before === undefined || after === undefined) return undefined
  const joined = mergedText(path, before, after)
  if (joined === undefined) return undefined
  return joined === after ? null : joined
}
