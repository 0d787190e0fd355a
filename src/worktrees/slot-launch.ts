// The effect `slot-reset`: a slot of a parallel run takes its next story. The last story's loop files
// leave the slot (they were archived when it settled), the slot moves to a new branch from the user's
// HEAD, its worktree.json says the new story, and a session is made there — in the slot's OpenCode
// instance, which is running already: no instance starts again. Each step is written before the one
// that depends on it: with the old loop's files gone first, the slot is never taken for a loop that
// ended again; a reset that fails before worktree.json is rewritten retires the slot (it is kept as
// it is, for the user), and one that fails after is recorded as this story's failed start.
import { rm } from "node:fs/promises"
import { join } from "node:path"
import type { Host } from "../host/port.js"
import { STATE_DIR } from "../project/own-files.js"
import { resetSlot, parkSlot } from "./slot-git.js"
import { readWorktreeState, writeWorktreeState } from "./worktree-file.js"
import type { WorktreeStarted } from "./worktree-start.js"
import type { WorktreeState } from "./worktree-state.js"
import { refuseExistingBranch, WorktreeError } from "./worktree-git.js"

export interface SlotReset {
  path: string
  state: Omit<WorktreeState, "base">
  title: string
}

export async function resetSlotForStory(
  main: string,
  api: Pick<Host, "createSession" | "log">,
  ask: SlotReset,
): Promise<WorktreeStarted> {
  const before = readWorktreeState(ask.path)
  // The story's branch exists already (an earlier run kept its work there): the story cannot start, in any slot —
  // its failure, not the slot's, which stays as it is for the next story.
  // (A git failure here is left to the reset below, which retires the slot.)
  const taken = await refuseExistingBranch(main, ask.state.branch).then(
    () => undefined,
    (error: unknown) => (error instanceof WorktreeError ? error.message : undefined),
  )
  if (taken) return { ok: false, error: taken }
  let base: WorktreeState["base"]
  try {
    if (before) await parkSlot(main, ask.path, before.branch)
    await rm(join(ask.path, STATE_DIR, "loops"), { recursive: true, force: true })
    base = await resetSlot(main, ask.path, ask.state.branch)
  } catch (error) {
    const why = error instanceof WorktreeError ? error.message : `git could not reset it: ${String(error)}`
    if (before) await writeWorktreeState(ask.path, { ...before, retired: why }).catch(() => undefined)
    api.log("error", `slot ${ask.state.name}: retired, ${why}`, { worktree: ask.path })
    return { ok: false, error: `the slot ${ask.state.name} could not take the story: ${why}`, slotRetired: true }
  }
  const state: WorktreeState = { ...ask.state, base }
  try {
    await writeWorktreeState(ask.path, state)
    const session = await api.createSession(ask.title, ask.path)
    return { ok: true, state, path: ask.path, sessionID: session.id }
  } catch (error) {
    const detail = `the loop could not be started in the slot ${ask.state.name}: ${String(error)}`
    await writeWorktreeState(ask.path, { ...state, merge: { result: "failed", detail } }).catch(() => undefined)
    api.log("error", `slot ${ask.state.name}: ${detail}`, { worktree: ask.path })
    return { ok: false, error: detail }
  }
}
