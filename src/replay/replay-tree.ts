// The replay tree on disk (issue 46): a scratch folder outside the project, holding the replay's
// files (plan.ts) for the checks to run in. The user's work tree, index and branch are never
// touched: the tree is written as a git tree object through a temporary index, and only the folders
// that differ from the work tree are made real — their files written from git (one checkout-index:
// on some file systems a link costs more than a small file), every other entry a link to the work
// tree's own (a folder the loop did not touch, and what the project installed: node_modules, a
// virtualenv, target/). A kill mid-way leaves only a folder in the temp dir, which the next replay
// sweeps once the process that made it is gone (sweepReplayTrees).
import { mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gitText } from "../git/run.js"
import { pathList } from "../git/path-list.js"
import { type TempIndexEnv, withTempIndex } from "../git/temp-index.js"
import type { Listing, ReplayPlan } from "./plan.js"
import { surfaceKind } from "./surface.js"

/** The replay trees' folder names: the pid of the process that made one, so a sweep knows its owner. */
const REPLAY_PREFIX = "ralph-replay-"
/** Entries of the work tree never linked into a replay tree. */
const NEVER_LINKED = new Set([".git", ".opencode"])
const ZERO = "0".repeat(40)

export interface ReplayTree {
  /** The folder the checks run in. */
  dir: string
  /** The replay tree as a git tree object. */
  tree: string
  remove: () => Promise<void>
}

/** Every file of a tree (`<rev>:<prefix>` or a tree id), with mode and object id. */
async function listTree(directory: string, tree: string): Promise<Map<string, { mode: string; oid: string }>> {
  const out = await gitText(directory, ["ls-tree", "-r", "-z", "--full-tree", tree])
  const files = new Map<string, { mode: string; oid: string }>()
  for (const record of out.split("\0")) {
    const tab = record.indexOf("\t")
    if (tab < 0) continue
    const [mode = "", , oid = ""] = record.slice(0, tab).split(" ")
    files.set(record.slice(tab + 1), { mode, oid })
  }
  return files
}

/** The replay tree as a tree object, in the temporary index: the end's, the plan's files put back, left out, merged. */
async function replayTreeObject(top: string, env: TempIndexEnv, input: MakeInput): Promise<string> {
  const { plan, start } = input
  await gitText(top, ["read-tree", input.endTree], { env })
  let info = ""
  for (const path of plan.putBack) {
    const entry = start.get(path)
    if (entry) info += `${entry.mode} ${entry.oid}\t${path}\0`
  }
  for (const path of plan.leftOut) info += `0 ${ZERO}\t${path}\0`
  for (const { path, text } of plan.merged) {
    const oid = (await gitText(top, ["hash-object", "-w", "--stdin"], { input: text })).trim()
    info += `100644 ${oid}\t${path}\0`
  }
  // The index's root is the project's (read-tree took `<commit>:<prefix>`), and git runs at the top, so
  // the paths are taken as they are.
  await gitText(top, ["update-index", "-z", "--index-info"], { env, input: info })
  return (await gitText(top, ["write-tree"], { env })).trim()
}

const folderOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf("/")))

/** The files of the replay tree right in a real folder (a submodule is no file: it is linked). */
function filesIn(real: ReadonlySet<string>, tree: Listing): string[] {
  const files: string[] = []
  for (const [path, entry] of tree) if (real.has(folderOf(path)) && entry.mode !== "160000") files.push(path)
  return files
}

/** The folders that hold a file the replay changes (and the root): the only ones made real. */
function realFolders(paths: Iterable<string>): Set<string> {
  const folders = new Set([""])
  for (const path of paths) {
    let slash = path.lastIndexOf("/")
    while (slash > 0) {
      folders.add(path.slice(0, slash))
      slash = path.lastIndexOf("/", slash - 1)
    }
  }
  return folders
}

export interface MakeInput {
  /** The project's directory (the work tree the links point into). */
  directory: string
  /** The repository's top folder (git's index commands take paths from there). */
  top: string
  /** The end's tree (the turn end's checkpoint, the project's part of it: `<commit>:<prefix>`). */
  endTree: string
  /** The start's files the plan puts back (at least those). */
  start: Listing
  plan: ReplayPlan
  /** Files the work tree holds that git ignores and a runner would read (surface): never linked. */
  ignoredSurface: readonly string[]
}

/** Makes the replay tree; on failure nothing of it is left. */
export async function makeReplayTree(input: MakeInput): Promise<ReplayTree> {
  const { directory, top, plan } = input
  const dir = await mkdtemp(join(tmpdir(), `${REPLAY_PREFIX}${process.pid}-`))
  const remove = () => rm(dir, { recursive: true, force: true })
  try {
    const changed = [...plan.putBack, ...plan.merged.map((m) => m.path)]
    const real = realFolders([...changed, ...plan.leftOut, ...input.ignoredSurface])
    const { tree, written } = await withTempIndex(top, async (env) => {
      const tree = await replayTreeObject(top, env, input)
      // Only the real folders' files are written: the replay tree's listing says which they are.
      const written = filesIn(real, await listTree(top, tree))
      const prefix = `--prefix=${dir}/`
      await gitText(top, ["checkout-index", "-f", "-z", "--stdin", prefix], { env, input: pathList(written) })
      return { tree, written }
    })
    const skip = new Set([...written, ...plan.leftOut, ...input.ignoredSurface])
    for (const folder of [...real].sort()) await linkFolder(directory, dir, folder, real, skip)
    return { dir, tree, remove }
  } catch (error) {
    await remove()
    throw error
  }
}

/** Links each entry of a real folder to the work tree's, but the real folders below it and the files written. */
async function linkFolder(
  directory: string,
  dir: string,
  folder: string,
  real: ReadonlySet<string>,
  skip: ReadonlySet<string>,
) {
  const inside = (name: string) => (folder === "" ? name : `${folder}/${name}`)
  await mkdir(join(dir, folder), { recursive: true })
  let names: string[]
  try {
    names = await readdir(join(directory, folder))
  } catch {
    return // a folder only the replay has (a test folder the loop removed)
  }
  for (const name of names) {
    const path = inside(name)
    if (folder === "" && NEVER_LINKED.has(name)) continue
    if (real.has(path) || skip.has(path)) continue
    await symlink(join(directory, path), join(dir, path))
  }
}

/** Files git ignores in the work tree that a runner would read (`conftest.py` in .git/info/exclude). */
export async function ignoredSurfaceFiles(directory: string): Promise<string[]> {
  const out = await gitText(directory, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"])
  return out
    .split("\0")
    .filter((path) => path !== "" && !path.endsWith("/") && !path.endsWith(".pyc") && !path.startsWith(".opencode/"))
    .filter((path) => surfaceKind(path) !== undefined)
}

/** Removes the replay trees that processes no longer running left (a kill mid-replay). */
export async function sweepReplayTrees(alive: (pid: number) => boolean): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(REPLAY_PREFIX)) continue
    const pid = Number(name.slice(REPLAY_PREFIX.length).split("-")[0])
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      await rm(join(tmpdir(), name), { recursive: true, force: true })
  }
}
