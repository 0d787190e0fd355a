// For the e2e tests only, in the style of src/host/faults.ts: with RALPH_LOOP_FAULT_INJECTION=1 and
// RALPH_LOOP_RUN_HOLD naming a phase boundary (phases.ts), `ralph-loop run` stops there, writes
// `<project>/.opencode/ralph-loop-run-held` (the boundary's name) and waits for a signal, then goes
// on as it would have — so a test lands a signal exactly at that boundary, without a sleep. Off (and
// never read) without that variable.
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { OPENCODE_DIR } from "../../project/own-files.js"
import type { HoldPoint } from "./phases.js"

/** The marker a held run writes. */
const HELD_MARKER = "ralph-loop-run-held"

/** Holds the run at `point` until `signalled` aborts, when the environment asks for it; else nothing. */
export async function holdAt(
  point: HoldPoint,
  env: NodeJS.ProcessEnv,
  project: string,
  signalled: AbortSignal,
): Promise<void> {
  if (env.RALPH_LOOP_FAULT_INJECTION !== "1" || env.RALPH_LOOP_RUN_HOLD !== point || signalled.aborted) return
  // A signal's listener keeps no process alive: a timer does, until the signal came.
  const alive = setInterval(() => undefined, 60_000)
  const came = new Promise<void>((resolve) => signalled.addEventListener("abort", () => resolve(), { once: true }))
  try {
    await writeFile(join(project, OPENCODE_DIR, HELD_MARKER), `${point}\n`)
    await came
  } finally {
    clearInterval(alive)
  }
}
