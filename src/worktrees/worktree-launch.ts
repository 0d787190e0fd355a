// The effect `worktree-launch`: the worktree on its branch, the config the worktree's instance
// needs, its worktree.json, and a session there. A failure once the worktree exists is recorded in
// it (merge "failed"), so it never counts as a live loop (src/worktrees/lifecycle.ts).
import type { WorktreeStarted } from "../worktrees/worktree-start.js"
import { ignoreOwnFolder } from "../files/ignore-own-folder.js"
import type { Host } from "../host/port.js"
import { writeWorktreeState } from "./worktree-file.js"
import type { WorktreeState } from "./worktree-state.js"
import { prepareWorktreeConfig } from "./worktree-config.js"
import { createWorktree, WorktreeError } from "./worktree-git.js"

export async function makeWorktreeLoop(
  directory: string,
  api: Pick<Host, "createSession" | "log">,
  ask: { state: Omit<WorktreeState, "base">; withChanges: boolean; title: string },
): Promise<WorktreeStarted> {
  const { name, branch, mainDirectory, ...rest } = ask.state
  let made: { path: string; state: WorktreeState } | undefined
  try {
    // worktree.json (with its launcher) is written the moment the worktree exists: a start cut off
    // after that by a failure or by OpenCode's stop is then always known as this plugin's own.
    const { path, base } = await createWorktree(
      directory,
      name,
      ask.withChanges,
      async ({ path, base }) => {
        made = { path, state: { name, branch, mainDirectory, base, ...rest } }
        await writeWorktreeState(path, made.state)
      },
      branch,
    )
    const state: WorktreeState = { name, branch, mainDirectory, base, ...rest }
    await ignoreOwnFolder(directory)
    await prepareWorktreeConfig(directory, path)
    const session = await api.createSession(ask.title, path)
    return { ok: true, state, path, sessionID: session.id }
  } catch (error) {
    if (!made)
      return {
        ok: false,
        error: error instanceof WorktreeError ? error.message : `could not make the worktree: ${String(error)}`,
      }
    // The worktree is there, its loop is not: recorded as failed, so it no longer counts as running.
    const detail = `the loop could not be started in the worktree ${name}: ${String(error)}`
    await writeWorktreeState(made.path, { ...made.state, merge: { result: "failed", detail } }).catch(() => undefined)
    api.log("error", `worktree ${name}: ${detail}`, { worktree: made.path })
    return { ok: false, error: detail }
  }
}
