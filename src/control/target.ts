// Where a control request from outside OpenCode goes, read from the project's files alone: the loop
// it names (which-loop.ts) among the project's live loops — a worktree loop's request goes to its
// worktree, where its own OpenCode instance runs. A rollback may name an ended loop too.
import { readProjectLoops } from "../status/read-project.js"
import type { ControlVerb } from "./request.js"
import { whichLoop } from "./which-loop.js"

export interface ControlTarget {
  /** The folder whose control folder the request goes in: the project, or the loop's worktree. */
  directory: string
  /** The loop's whole id. */
  loop: string
  /** The worktree's name, for a worktree loop. */
  worktree?: string
}

export async function controlTarget(
  project: string,
  wanted: string | undefined,
  verb: ControlVerb,
): Promise<{ ok: true; target: ControlTarget } | { ok: false; reason: string }> {
  const { loops } = await readProjectLoops(project)
  const targets = loops.map((s) => ({
    id: s.loop.id,
    live: s.loop.phase !== "stopped",
    target: {
      directory: s.worktree?.path ?? project,
      loop: s.loop.id,
      ...(s.worktree ? { worktree: s.worktree.name } : {}),
    },
  }))
  const live = whichLoop(
    targets.filter((t) => t.live),
    wanted,
  )
  if (live.ok) return { ok: true, target: live.loop.target }
  if (verb !== "rollback" || wanted === undefined) return live
  const any = whichLoop(
    targets.filter((t) => !t.live),
    wanted,
  )
  return any.ok ? { ok: true, target: any.loop.target } : live
}
