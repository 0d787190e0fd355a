// The git side of worktree loops: make a worktree on `ralph/<NAME>` from the user's HEAD (their
// uncommitted changes carried over only when asked), commit the loop's work there, merge it back by
// the merge plan, and remove a worktree whose branch is merged. Every command names what failed.
import { lstat, mkdir, realpath } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { OPENCODE_DIR } from "../project/own-files.js"
import { branchOf, worktreePath, WORKTREES_DIR } from "./names.js"
import type { MergeStrategy } from "../config/merge-strategy.js"
import type { MergeFacts } from "./merge-plan.js"
import type { WorktreeState } from "./worktree-state.js"
import { restoreCheckpoint, workTreeSnapshot } from "../checkpoints/checkpoint-git.js"
import { currentBranch, headCommit } from "../git/head.js"
import { commitIdentity } from "../git/identity.js"
import { previewMerge } from "../git/merge-preview.js"
import { git, gitAsks, gitText, notARepository } from "../git/run.js"
import { inFileQueue } from "../files/file-queue.js"

/** The work tree without the loop's own files. */
export const WORK = ["--", ".", `:(exclude)${OPENCODE_DIR}`]

/**
 * A change of the repository's list of worktrees, one at a time in this process (every instance of
 * the project shares it, src/files/file-queue.ts): `git worktree add` reads every other worktree's
 * admin files under .git/worktrees/, and one being written at that moment (its `commondir` still
 * empty) makes it fail — "fatal: failed to read .git/worktrees/<other>/commondir: Success" — which
 * a parallel run's worktrees made side by side met.
 */
const worktreeListChange = <T>(main: string, change: () => Promise<T>): Promise<T> =>
  inFileQueue(join(main, ".git", "worktrees"), change)

export class WorktreeError extends Error {}

/**
 * Makes the worktree `name` of the repository at `directory` (its top folder) on a new branch from
 * HEAD. `withChanges`: the user's uncommitted changes and untracked files are written into it too.
 * `made` runs the moment the worktree exists (before anything else is written into it).
 */
export async function createWorktree(
  directory: string,
  name: string,
  withChanges: boolean,
  made?: (made: { path: string; base: WorktreeState["base"] }) => Promise<void>,
  branch: string = branchOf(name),
): Promise<{ path: string; base: WorktreeState["base"] }> {
  const found = await git(directory, ["rev-parse", "--show-toplevel"])
  if (notARepository(found)) throw new WorktreeError("the project is not a git repository")
  if (!found.ok) throw new WorktreeError(`git rev-parse --show-toplevel: ${found.reason}`)
  const top = found.stdout.trim()
  if ((await realFolder(top)) !== (await realFolder(directory))) {
    throw new WorktreeError(`worktree loops run from the repository's top folder (${top})`)
  }
  const commit = await headCommit(directory)
  if (!commit) throw new WorktreeError("the repository has no commit yet to branch from")
  await refuseExistingBranch(directory, branch)
  const path = worktreePath(directory, name)
  const baseBranch = await currentBranch(directory)
  const tree = withChanges ? await workTreeSnapshot(directory) : undefined
  await mkdir(dirname(path), { recursive: true })
  await worktreeListChange(directory, () => gitText(directory, ["worktree", "add", "-q", "-b", branch, path, commit]))
  const base = { ...(baseBranch ? { branch: baseBranch } : {}), commit }
  await made?.({ path, base })
  if (tree) await restoreCheckpoint(path, "HEAD", tree)
  return { path, base }
}

export const branchExists = (directory: string, branch: string): Promise<boolean> =>
  gitAsks(directory, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`])

/** A new branch never takes the place of one that exists: its commits may be someone's work. */
export async function refuseExistingBranch(directory: string, branch: string): Promise<void> {
  if (await branchExists(directory, branch)) {
    throw new WorktreeError(
      `the branch ${branch} exists already; choose another name (or delete it: git branch -D ${branch})`,
    )
  }
}

/** Commits what the loop changed in its worktree (its own files aside); undefined when nothing changed. */
export async function commitWork(worktree: string, message: string): Promise<string | undefined> {
  await gitText(worktree, ["add", "-A", ...WORK])
  if (await gitAsks(worktree, ["diff", "--cached", "--quiet"])) return undefined
  await gitText(worktree, ["commit", "-q", "-m", message], { env: await commitIdentity(worktree) })
  return (await gitText(worktree, ["rev-parse", "HEAD"])).trim()
}

/** What the merge plan needs to know of the main work tree and the loop's branch. */
export async function mergeFacts(state: WorktreeState, strategy: MergeStrategy): Promise<MergeFacts> {
  const main = state.mainDirectory
  const current = await currentBranch(main)
  const ahead = (await gitText(main, ["rev-list", "--count", `HEAD..${state.branch}`])).trim() !== "0"
  const onBaseBranch = state.base.branch !== undefined && current === state.base.branch
  const fastForward = await gitAsks(main, ["merge-base", "--is-ancestor", "HEAD", state.branch])
  const mainClean = (await gitText(main, ["status", "--porcelain", ...WORK])).trim() === ""
  const conflicts = strategy === "merge" && ahead && onBaseBranch ? await conflictsOf(main, state.branch) : []
  return {
    strategy,
    branch: state.branch,
    ahead,
    onBaseBranch,
    baseBranch: state.base.branch,
    fastForward,
    mainClean,
    conflicts,
  }
}

/** The files a merge of `branch` into HEAD would leave in conflict (none: it merges cleanly). */
async function conflictsOf(main: string, branch: string): Promise<string[]> {
  const preview = await previewMerge(main, branch)
  return preview.clean ? [] : preview.conflicts
}

// A fast-forward is made only into a clean work tree (the merge plan); --no-overwrite-ignore keeps
// git from writing over a file of the user's that git ignores (an `.env`) when the branch brings one.
export async function fastForward(main: string, branch: string): Promise<void> {
  await gitText(main, ["merge", "-q", "--ff-only", "--no-overwrite-ignore", branch])
}

export async function mergeBranch(main: string, branch: string, message: string): Promise<void> {
  const inTheWay = await uncommittedInTheWay(main, branch)
  if (inTheWay) throw new WorktreeError(inTheWay)
  const env = await commitIdentity(main)
  await gitText(main, ["merge", "-q", "--no-ff", "--no-edit", "-m", message, branch], { env })
}

/**
 * Why a merge commit of `branch` would touch the user's uncommitted work, or undefined. None of it is
 * left to git: with staged changes, or a changed file the merge must write, its merge fails and then
 * resets the work tree and puts the changes back from a stash of its own (what was staged, or
 * deleted, is not as it was); and it writes over an untracked file git ignores without a word.
 */
async function uncommittedInTheWay(main: string, branch: string): Promise<string | undefined> {
  if (!(await gitAsks(main, ["diff", "--cached", "--quiet"]))) return "your index holds staged changes"
  const preview = await previewMerge(main, branch)
  if (!preview.clean) return "it would conflict"
  const tree = preview.tree
  // The files the merge writes, each with its status: "A" is one HEAD lacks (the index is HEAD's, so
  // git tracks every other). No list of files goes back to git: tens of thousands would pass the
  // system's limit on a command line (E2BIG).
  const fields = (await gitText(main, ["diff", "--name-status", "--no-renames", "-z", "HEAD", tree])).split("\0")
  const written: Array<{ path: string; added: boolean }> = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    written.push({ path: fields[i + 1] as string, added: fields[i] === "A" })
  }
  if (written.length === 0) return undefined
  // Changed in the work tree (the index is HEAD's), or untracked where the merge puts a file.
  const changed = new Set((await gitText(main, ["diff", "--name-only", "--no-renames", "-z"])).split("\0"))
  const found: string[] = []
  const there = (path: string) =>
    lstat(join(main, path)).then(
      () => true,
      () => false,
    )
  for (const { path, added } of written) if (changed.has(path) || (added && (await there(path)))) found.push(path)
  if (found.length === 0) return undefined
  return (
    `your uncommitted ${found.slice(0, 10).join(", ")}${found.length > 10 ? ", …" : ""} ` +
    `${found.length === 1 ? "is" : "are"} in its way`
  )
}

/**
 * Removes the worktree folder and its branch (none: a slot's, whose story branches are settled each on its own),
 * once merged (`git branch -d` refuses an unmerged one).
 */
export async function removeWorktree(
  main: string,
  name: string,
  force = false,
  // null, not undefined: an undefined argument takes the default, and `git branch -d ralph/<slot name>` then fails.
  branch: string | null = branchOf(name),
): Promise<void> {
  await worktreeListChange(main, () => gitText(main, ["worktree", "remove", "--force", worktreePath(main, name)]))
  if (branch) await deleteBranch(main, branch, force)
}

/**
 * In the queue too: `git branch -d` reads every worktree's admin folder (is the branch checked out there?) and
 * fails "Invalid path '.git/worktrees/<other>'" when another removal takes one meanwhile.
 */
export const deleteBranch = (main: string, branch: string, force = false): Promise<string> =>
  worktreeListChange(main, () => gitText(main, ["branch", force ? "-D" : "-d", branch]))

/**
 * Removes the worktree `name` a start that did not finish left behind (its caller knows it for one:
 * worktree.json says it failed to start, or there is none and no loop was saved) — only once git
 * shows nothing of anyone's is in it: git lists it on its own branch, that branch has no commit of its
 * own (it is still at `base`, or your branch has every commit of it), and its folder holds no file
 * beyond that commit, ignored ones included (the plugin's `.opencode/` aside). What stops it: why.
 * `expected`: the branch it must be on; undefined takes the `ralph/` branch git lists it on (a slot's folder
 * without worktree.json: made for a story whose branch it does not say).
 */
export async function reclaimWorktree(
  main: string,
  name: string,
  base: string | undefined,
  expected: string | undefined,
): Promise<{ ok: true } | { ok: false; why: string }> {
  try {
    const listed = (await listWorktreeFolders(main)).find((w) => w.name === name)
    if (!listed) return { ok: false, why: "git does not list it as a worktree" }
    const branch = expected ?? listed.branch
    if (branch === undefined || !branch.startsWith(branchOf("")))
      return { ok: false, why: "it is not on a branch of ralph-loop (ralph/…)" }
    if (listed.branch !== branch) return { ok: false, why: `it is not on its branch ${branch}` }
    const tip = (await gitText(main, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`])).trim()
    if (tip !== base && (await unmergedCommits(main, branch)) > 0)
      return { ok: false, why: `its branch ${branch} has commits of its own` }
    const files = await gitText(listed.path, [
      "status",
      "--porcelain",
      "-z",
      "--ignored",
      "--untracked-files=all",
      ...WORK,
    ])
    if (files !== "") return { ok: false, why: "it holds files that are not in its commit" }
    await worktreeListChange(main, () => gitText(main, ["worktree", "remove", "--force", listed.path]))
    await worktreeListChange(main, () => gitText(main, ["branch", "-D", branch]))
    return { ok: true }
  } catch (error) {
    // Documented choice: a failure here keeps the worktree (it is said why), it is never read as "empty".
    return {
      ok: false,
      why: `git could not tell whether it holds work (${error instanceof Error ? error.message : String(error)})`,
    }
  }
}

/**
 * Commits on the worktree's branch that its base branch (or HEAD) does not have; a git failure throws (never "none").
 */
export async function unmergedCommits(main: string, branch: string): Promise<number> {
  const count = Number((await gitText(main, ["rev-list", "--count", `HEAD..${branch}`])).trim())
  if (!Number.isInteger(count)) throw new Error(`git rev-list: no count for ${branch}`)
  return count
}

/**
 * What the worktree holds beyond its commit (the loop's own files aside): changed, untracked and
 * ignored files — a loop's `.env` or build output goes with the folder too. As git names them (a
 * folder of untracked or ignored files as the folder); a git failure throws (never "clean").
 */
export async function worktreeUncommitted(worktree: string): Promise<string[]> {
  const out = await gitText(worktree, ["status", "--porcelain", "-z", "--ignored", "--no-renames", ...WORK])
  return out
    .split("\0")
    .filter(Boolean)
    .map((entry) => entry.slice(3))
}

/** Whether the worktree holds anything beyond its commit (worktreeUncommitted); a git failure throws. */
export const worktreeDirty = async (worktree: string): Promise<boolean> =>
  (await worktreeUncommitted(worktree)).length > 0

/** A folder's real path (symlinks resolved, as git gives paths); the path itself when it cannot be resolved. */
const realFolder = (path: string): Promise<string> => realpath(path).catch(() => resolve(path))

/** The worktrees of the repository under `.opencode/ralph-loop/worktrees/`, by name. */
export async function listWorktreeFolders(
  main: string,
): Promise<Array<{ name: string; path: string; branch?: string }>> {
  const listed = await git(main, ["worktree", "list", "--porcelain"])
  if (notARepository(listed)) return []
  if (!listed.ok) throw new Error(`git worktree list: ${listed.reason}`)
  const out = listed.stdout
  // git names each worktree by its real path: a project reached through a symlink is compared as its real self.
  const root = resolve(await realFolder(main), WORKTREES_DIR)
  const found: Array<{ name: string; path: string; branch?: string }> = []
  for (const block of out.split("\n\n")) {
    const path = /^worktree (.*)$/m.exec(block)?.[1]
    if (!path || dirname(resolve(path)) !== root) continue
    const branch = /^branch refs\/heads\/(.*)$/m.exec(block)?.[1]
    found.push({ name: path.slice(root.length + 1), path, ...(branch ? { branch } : {}) })
  }
  return found
}
