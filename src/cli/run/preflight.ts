// What `ralph-loop run` settles before a server is involved: what it was asked to do (a new /ralph, or
// a loop to take back with --resume), and the server itself (started here, or attached to).
import { existsSync } from "node:fs"
import { parseRalphArgs } from "../../commands/ralph-args.js"
import type { SavedLoop } from "../../store/saved-loops.js"
import { findOpencode } from "../opencode.js"
import { packageInfo } from "../../listings/package-info.js"
import type { RunArgs } from "./args.js"
import { usageByLastDecision } from "./follow.js"
import { PARALLEL_REFUSED, ralphError, WORKTREE_REFUSED } from "./help.js"
import { attachHost, HostError, startHost, type Host } from "./host.js"
import { freshMemory, resumedMemory, type FollowMemory } from "./journal-events.js"
import { loopToResume, serverEnv } from "./loop-files.js"

/** The run's request: a loop to resume (else a new /ralph), and what the follow remembers from before. */
export interface RunRequest {
  resuming: SavedLoop | undefined
  memory: FollowMemory
}

/** The request, or why it is refused (a usage error). */
export async function runRequest(args: RunArgs): Promise<RunRequest | { refused: string }> {
  if (args.resume !== undefined) {
    const pick = await loopToResume(args.project, args.resume)
    if (typeof pick === "string") return { refused: pick }
    // Read before the loop can go on: its next iteration's tokens and cost count from here, not from 0.
    return { resuming: pick, memory: resumedMemory(pick.loop, await usageByLastDecision(args.project, pick.loop)) }
  }
  const ralph = parseRalphArgs(args.ralph)
  if (!ralph.ok) return { refused: `/ralph ${args.ralph}: ${ralphError(ralph.error)}` }
  if (!ralph.task && ralph.prd === undefined) return { refused: "/ralph needs a task (or --prd [PATH])" }
  const unsupported = ralph.parallel !== undefined ? PARALLEL_REFUSED : ralph.worktree ? WORKTREE_REFUSED : undefined
  if (unsupported) return { refused: unsupported }
  return { resuming: undefined, memory: freshMemory() }
}

/** The server: the one at --attach, else `opencode serve` started in the project. */
export async function hostFor(args: RunArgs, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<Host> {
  if (args.attach) return attachHost(args.attach, args.project, { signal })
  const bin = args.opencode ?? findOpencode(env, packageInfo().dir)
  if (!bin) {
    throw new HostError(
      "OpenCode (the `opencode` command) is not on PATH: install it (https://opencode.ai), or give its path with " +
        "--opencode PATH",
    )
  }
  if (!existsSync(bin)) throw new HostError(`--opencode ${bin}: no such file`)
  return startHost({ bin, project: args.project, env: serverEnv(env, args.model), signal })
}
