// `ralph-loop pause | resume | cancel | rollback | hint | accept [LOOP] …`: from another terminal, the plugin
// running in OpenCode is asked through its control channel (src/control/) — no chat message, no
// model turn. LOOP: a loop's id or the start of it; none: the project's one live loop.
// Exit status: 0 done, 1 refused (the reason is printed), 2 usage, 3 no answer (OpenCode is not
// running with the plugin there; the request is withdrawn, so nothing acts on it later).
import { sendControl } from "../control/client.js"
import { controlRequestSchema, MAX_ACCEPT_KEYS, MAX_KEY_CHARS, type ControlVerb } from "../control/request.js"
import { MODEL_SESSION_ENV } from "../evidence/accepted.js"
import { controlTarget } from "../control/target.js"
import type { CliArgs } from "./args.js"

export const CLI_CONTROL_VERBS: ReadonlySet<string> = new Set([
  "pause",
  "resume",
  "cancel",
  "rollback",
  "hint",
  "accept",
])
export const NO_ANSWER_EXIT = 3

/** The longest hint the plugin takes: the control request's own limit (src/control/request.ts), in UTF-16 units. */
export const MAX_HINT_CHARS = controlRequestSchema.shape.text.unwrap().maxLength ?? 4_000

/** Why `text` cannot be sent as a hint (one line, for the terminal); undefined when it can. */
function hintProblem(text: string | undefined): string | undefined {
  if (!text?.trim()) return "hint needs the text: ralph-loop hint [LOOP] TEXT (a TEXT that starts with - goes after --)"
  const count = (n: number) => n.toLocaleString("en-US")
  if (text.length > MAX_HINT_CHARS)
    return `the hint is ${count(text.length)} characters long; a hint can be at most ${count(MAX_HINT_CHARS)}`
  return undefined
}

export async function control(
  args: CliArgs,
  verb: ControlVerb,
  out: (line: string) => void,
  fail: (line: string) => void,
): Promise<number> {
  const text = verb === "hint" ? args.operands.at(-1) : undefined
  const problem = verb === "hint" ? hintProblem(text) : undefined
  if (problem) {
    fail(`ralph-loop: ${problem}`)
    return 2
  }
  const keys = verb === "accept" ? acceptFields(args).keys : []
  if (keys.length > MAX_ACCEPT_KEYS || keys.some((k) => k.length > MAX_KEY_CHARS)) {
    fail(`ralph-loop: accept takes at most ${MAX_ACCEPT_KEYS} keys of at most ${MAX_KEY_CHARS} characters each`)
    return 2
  }
  if (args.to !== undefined && verb !== "rollback") {
    fail(`ralph-loop: --to is for rollback only`)
    return 2
  }
  const found = await controlTarget(args.project, args.loop, verb)
  if (!found.ok) {
    fail(`ralph-loop ${verb}: ${found.reason}`)
    return 1
  }
  const { directory, loop, worktree } = found.target
  const outcome = await sendControl(directory, {
    verb,
    loop,
    from: `ralph-loop ${verb}`,
    ...(text === undefined ? {} : { text }),
    ...(args.to === undefined ? {} : { checkpoint: args.to }),
    ...(verb === "accept" ? acceptFields(args) : {}),
  })
  const where = worktree ? ` (worktree ${worktree})` : ""
  if (outcome.status === "done") {
    out(`${outcome.title} — ${loop}${where}`)
    out(outcome.message)
    return 0
  }
  fail(`${outcome.title} — ${loop}${where}`)
  fail(outcome.message)
  return outcome.status === "refused" ? 1 : NO_ANSWER_EXIT
}

/** accept [LOOP] [KEY…]: the keys, and the model's session when a model's shell runs the command. */
function acceptFields(args: CliArgs): { keys: string[]; modelSession?: string } {
  const keys = args.loop === undefined ? args.operands : args.operands.slice(1)
  const modelSession = process.env[MODEL_SESSION_ENV]
  return { keys, ...(modelSession ? { modelSession } : {}) }
}
