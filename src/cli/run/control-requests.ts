// What `ralph-loop run` asks of its loop through the plugin's control channel: go on (--resume), or
// pause or cancel (a signal). No model turn; the plugin acts and writes its state.
import type { Loop } from "../../loop/loop.js"
import { sendControl } from "../../control/client.js"
import type { OnInterrupt } from "./args.js"
import type { Ending } from "./exit-code.js"
import { readLoopState, stateAsOf } from "./follow.js"

/** Why a request was not done, and the run's ending for it. */
export interface Refusal {
  message: string
  ending: Ending
}

const needsResume = (loop: Loop | undefined): boolean => loop?.phase === "paused" || loop?.phase === "waiting"

/**
 * --resume: the loop goes on now (paused: an interrupt, a person's pause, resumeOnStart "ask"; or
 * waiting). Undefined when it does (or needed nothing); else why not.
 */
export async function resumeLoop(project: string, loopID: string, asOf: number): Promise<Refusal | undefined> {
  if (!needsResume((await stateAsOf(() => readLoopState(project, loopID), asOf))?.loop)) return undefined
  const outcome = await sendControl(project, { verb: "resume", loop: loopID, from: "ralph-loop run --resume" })
  if (outcome.status === "done") return undefined
  // Went on meanwhile by itself (a wait ended): nothing to do.
  if (outcome.status === "refused" && !needsResume((await readLoopState(project, loopID))?.loop)) return undefined
  return {
    message: `the loop could not be resumed: ${outcome.message}`,
    ending: outcome.status === "refused" ? { kind: "usage" } : { kind: "runner-failure" },
  }
}

/**
 * SIGINT/SIGTERM: the loop is paused (or cancelled) — the turn under way is cut off when the server
 * stops, and recovery takes it up at --resume. Undefined when the plugin did it; else what happened instead.
 */
export async function interruptLoop(
  project: string,
  loopID: string,
  signal: NodeJS.Signals,
  action: OnInterrupt,
): Promise<string | undefined> {
  const cause = action === "pause" ? { cause: "interrupt" as const } : {}
  const from = `ralph-loop run (${signal})`
  const outcome = await sendControl(project, { verb: action, loop: loopID, from, ...cause })
  if (outcome.status === "done") return undefined
  const verb = action === "pause" ? "paused" : "cancelled"
  return `the loop could not be ${verb} (${outcome.message}); its state is on disk as the plugin last wrote it`
}
