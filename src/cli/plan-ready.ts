// `ralph-loop plan ready [PATH] [--project DIR] [--json]`: the stories that can start now — not
// done in the plan file, every dependency done — one id a line in the loop's order, or with --json
// `{"stories":[…],"done":[…],"left":N}` (a CI matrix takes `.stories`). No story ready means every
// story is done: the reader refuses dependencies that go round. Exit 1 when the file cannot be used.
import { readyStories } from "../plan/plan.js"
import type { CliArgs } from "./args.js"
import { planPath } from "./plan-check.js"
import { readPlanFile } from "../plan/plan-file.js"

/** What `plan ready --json` prints: the ids ready (the matrix), those done, how many are not done. */
export interface ReadyDocument {
  stories: string[]
  done: string[]
  left: number
}

export async function planReady(
  args: CliArgs,
  path: string | undefined,
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  note: (line: string) => void,
): Promise<number> {
  const read = await readPlanFile(args.project, planPath(args, path, env))
  if (!read.ok) {
    note(`ralph-loop plan ready: ${read.message}`)
    return 1
  }
  const done = new Set(read.plan.doneInFile)
  const ready = readyStories(read.plan.stories, done).map((s) => s.id)
  if (args.json) {
    const document: ReadyDocument = {
      stories: ready,
      done: read.plan.stories.filter((s) => done.has(s.id)).map((s) => s.id),
      left: read.plan.stories.length - done.size,
    }
    out(JSON.stringify(document))
    return 0
  }
  for (const id of ready) out(id)
  if (ready.length === 0)
    note(`ralph-loop plan ready: no story of ${read.file} is left to start: all ${read.plan.stories.length} are done`)
  return 0
}
