// The git side of a parallel run's slots (issue 40): a slot's worktree stays from story to story, so
// between two stories it leaves the story's branch (parked: HEAD detached, the branch deleted once
// merged, kept otherwise) and takes the next story's new branch from the user's HEAD.
import { currentBranch, headCommit } from "../git/head.js"
import { gitAsks, gitText } from "../git/run.js"
import type { WorktreeState } from "./worktree-state.js"
import {
  branchExists,
  deleteBranch,
  refuseExistingBranch,
  removeWorktree,
  WORK,
  WorktreeError,
} from "./worktree-git.js"

/**
 * The slot leaves `branch`: HEAD detached where it is, and the branch deleted when the user's branch has all of it
 * (`git branch -d` refuses otherwise: then it is kept). Whether it was deleted.
 */
export async function parkSlot(main: string, slot: string, branch: string): Promise<{ branchDeleted: boolean }> {
  if (await gitAsks(slot, ["symbolic-ref", "-q", "HEAD"])) await gitText(slot, ["switch", "-q", "--detach"])
  if (!(await branchExists(main, branch))) return { branchDeleted: false }
  const merged = await gitAsks(main, ["merge-base", "--is-ancestor", `refs/heads/${branch}`, "HEAD"])
  if (!merged) return { branchDeleted: false }
  await deleteBranch(main, branch)
  return { branchDeleted: true }
}

/**
 * What the slot holds beyond its commit that a reset would carry into the next story (the loop's own files and
 * what git ignores aside: a build output or node_modules stays, as in any checkout). A git failure throws.
 */
async function slotChanges(slot: string): Promise<string[]> {
  const out = await gitText(slot, ["status", "--porcelain", "-z", "--no-renames", ...WORK])
  return out
    .split("\0")
    .filter(Boolean)
    .map((entry) => entry.slice(3))
}

/** "changes not in a commit (a, b, …)": the first five named. */
const changesText = (left: readonly string[]): string =>
  `changes not in a commit (${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""})`

/** The slot on the next story's new `branch` from the user's HEAD: the base it starts from. */
export async function resetSlot(main: string, slot: string, branch: string): Promise<WorktreeState["base"]> {
  const left = await slotChanges(slot)
  if (left.length > 0) throw new WorktreeError(`the slot holds ${changesText(left)}`)
  const commit = await headCommit(main)
  if (!commit) throw new WorktreeError("the repository has no commit to start the story from")
  await refuseExistingBranch(main, branch)
  await gitText(slot, ["switch", "-q", "-c", branch, commit])
  const baseBranch = await currentBranch(main)
  return { ...(baseBranch ? { branch: baseBranch } : {}), commit }
}

/**
 * A slot whose run is over goes: only when it holds nothing beyond its commit (else it throws, and the slot is kept
 * for the user); its stories' branches were settled each on its own, so no branch goes with it.
 */
export async function removeSlot(main: string, name: string, slot: string): Promise<void> {
  const left = await slotChanges(slot)
  if (left.length > 0) throw new WorktreeError(`it holds ${changesText(left)}`)
  await removeWorktree(main, name, true, null)
}
