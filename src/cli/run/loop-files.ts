// What the runner reads of the project's loops before and beside its server: the loop a --resume
// takes back, and what a loop's state file says that its journal line does not.
import { join } from "node:path"
import type { Loop } from "../../loop/loop.js"
import { STATE_DIR } from "../../project/own-files.js"
import { readLoopFiles, type SavedLoop } from "../../store/saved-loops.js"
import type { StateNow } from "./journal-events.js"

/** The loop --resume [LOOP] takes back: that one (its id or the start of it), else the newest one not ended. */
export async function loopToResume(project: string, wanted: string): Promise<SavedLoop | string> {
  const { loops } = await readLoopFiles(join(project, STATE_DIR, "loops"))
  if (wanted) {
    const loop = loops.find((l) => l.loop.id === wanted) ?? loops.find((l) => l.loop.id.startsWith(wanted))
    if (!loop) return `no loop ${wanted} in ${project}`
    if (loop.loop.phase === "stopped")
      return `loop ${loop.loop.id} has ended (${loop.loop.stopReason}); start a new one`
    return loop
  }
  return loops.find((l) => l.loop.phase !== "stopped") ?? `no paused or interrupted loop in ${project} to resume`
}

/** What the state file says now that a journal line does not. */
export function stateNow(loop: Loop | undefined): StateNow | undefined {
  if (!loop) return undefined
  return {
    phase: loop.phase,
    ...(loop.detail !== undefined ? { detail: loop.detail } : {}),
    ...(loop.pauseCause !== undefined ? { pauseCause: loop.pauseCause } : {}),
    ...(loop.wait ? { wait: { reason: loop.wait.reason, until: loop.wait.until } } : {}),
    ...(loop.breaker.reason !== undefined ? { breakerReason: loop.breaker.reason } : {}),
    ...(loop.review
      ? { review: { reviews: loop.review.reviews, ...(loop.review.last ? { last: loop.review.last } : {}) } }
      : {}),
  }
}

/** The server's environment: the user's, with --model as a config layer of this run alone (no file is written). */
export function serverEnv(env: NodeJS.ProcessEnv, model: string | undefined): NodeJS.ProcessEnv {
  if (!model) return env
  let content: Record<string, unknown> = {}
  try {
    const given: unknown = env.OPENCODE_CONFIG_CONTENT ? JSON.parse(env.OPENCODE_CONFIG_CONTENT) : {}
    if (given && typeof given === "object" && !Array.isArray(given)) content = given as Record<string, unknown>
  } catch {
    // not JSON: OpenCode would not read it either; --model alone is given
  }
  return { ...env, OPENCODE_CONFIG_CONTENT: JSON.stringify({ ...content, model }) }
}
