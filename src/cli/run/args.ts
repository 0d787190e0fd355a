// `ralph-loop run [runner options] [--] <what /ralph takes>`: the runner's own options, anywhere
// before a `--` (none of them is a /ralph flag), and the rest — the task and its flags, or --prd … —
// as the argument line /ralph gets, the task's words as the user wrote them. Pure.
import { resolve } from "node:path"
import { looksLikePlanPath, RALPH_FLAGS } from "../../commands/ralph-args.js"
import { looksLikeWorktreeName } from "../../worktrees/names.js"

export type OnInterrupt = "pause" | "cancel"

export interface RunArgs {
  project: string
  /** A running OpenCode server to use instead of starting one. */
  attach: string | undefined
  /** The opencode binary to start (default: the `opencode` on PATH). */
  opencode: string | undefined
  /** PROVIDER/MODEL for this run only. */
  model: string | undefined
  json: boolean
  verbose: boolean
  autoApprove: boolean
  onInterrupt: OnInterrupt
  /** A completion that is not verified ends with its own exit code (for CI). */
  requireVerified: boolean
  /** Go on with a paused or interrupted loop: its id (or the start of it), or "" for the newest. */
  resume: string | undefined
  /** What /ralph gets: the task and its flags, as one argument line. */
  ralph: string
  help: boolean
}

/**
 * The shell's words as /ralph's argument line (split again by src/commands/ralph-args.ts): its flags
 * first, each with its value (quoted when it holds spaces or quotes: --check "npm test"), then `--`
 * and the task's words as written. /ralph takes what follows its `--` verbatim, so a task word that
 * holds `--` or a quote ("fix the --verbose flag", '90s) reaches it, and the model, whole.
 */
export function ralphLine(words: readonly string[]): string {
  const flags: string[] = []
  const task: string[] = []
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string
    // A second `--` is /ralph's own: every word after it is the task's.
    if (word === "--") {
      task.push(...words.slice(i + 1))
      break
    }
    if (!word.startsWith("--")) {
      task.push(word)
      continue
    }
    const eq = word.indexOf("=")
    flags.push(eq < 0 ? word : `${word.slice(0, eq)}=${quoted(word.slice(eq + 1))}`)
    const next = words[i + 1]
    if (eq < 0 && next !== undefined && !next.startsWith("--") && takesValue(word, next)) {
      flags.push(quoted(next))
      i += 1
    }
  }
  return [...flags, ...(task.length > 0 ? ["--", task.join(" ")] : [])].join(" ")
}

/** Whether /ralph reads `next` as the value of `flag` (as ralph-args.ts does). */
function takesValue(flag: string, next: string): boolean {
  if (flag === "--prd") return looksLikePlanPath(next)
  if (flag === "--worktree") return looksLikeWorktreeName(next)
  if (flag === "--parallel" || flag === "--story") return true
  const spec = RALPH_FLAGS[flag]
  return spec !== undefined && spec.kind !== "switch"
}

/** A flag's value as /ralph splits it back: bare when it can be, else in double quotes (\ escapes inside). */
function quoted(value: string): string {
  let plain = value !== ""
  for (const ch of value) if (ch === '"' || ch === "'" || ch === "\\" || /\s/.test(ch)) plain = false
  return plain ? value : `"${value.replace(/["\\]/g, (ch) => `\\${ch}`)}"`
}

const VALUE_FLAGS = new Set(["--project", "--attach", "--opencode", "--model", "--on-interrupt"])

export function parseRunArgs(argv: readonly string[], cwd: string): RunArgs | { error: string } {
  const args: RunArgs = {
    project: cwd,
    attach: undefined,
    opencode: undefined,
    model: undefined,
    json: false,
    verbose: false,
    autoApprove: false,
    onInterrupt: "pause",
    requireVerified: false,
    resume: undefined,
    ralph: "",
    help: false,
  }
  const passed: string[] = []
  let i = 0
  for (; i < argv.length; i += 1) {
    const arg = argv[i] as string
    if (arg === "--") break
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1
    const flag = eq > 0 ? arg.slice(0, eq) : arg
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined
    if (VALUE_FLAGS.has(flag)) {
      const value = inline ?? argv[++i]
      if (value === undefined || value === "") return { error: `${flag} needs a value` }
      if (flag === "--project") args.project = resolve(cwd, value)
      else if (flag === "--attach") {
        if (!/^https?:\/\/[^\s/]+/.test(value))
          return { error: `--attach needs the server's URL (http://HOST:PORT), not ${JSON.stringify(value)}` }
        args.attach = value.replace(/\/+$/, "")
      } else if (flag === "--opencode") args.opencode = resolve(cwd, value)
      else if (flag === "--model") {
        if (!/^[^/\s]+\/\S+$/.test(value))
          return { error: `--model needs PROVIDER/MODEL, not ${JSON.stringify(value)}` }
        args.model = value
      } else if (value === "pause" || value === "cancel") args.onInterrupt = value
      else return { error: `--on-interrupt is pause or cancel, not ${JSON.stringify(value)}` }
    } else if (flag === "--json" && inline === undefined) args.json = true
    else if (flag === "--verbose" && inline === undefined) args.verbose = true
    else if (flag === "--auto-approve" && inline === undefined) args.autoApprove = true
    else if (flag === "--require-verified" && inline === undefined) args.requireVerified = true
    else if (flag === "--help" || flag === "-h") args.help = true
    else if (flag === "--resume") {
      // --resume takes the loop's id when one follows it: a loop is never given a task.
      const next = argv[i + 1]
      const takesNext = inline === undefined && next !== undefined && next !== "--" && !next.startsWith("-")
      if (takesNext) i += 1
      args.resume = inline ?? (takesNext ? next : "")
    } else passed.push(arg)
  }
  const rest = argv.slice(i + 1)
  if (args.attach && args.opencode)
    return { error: "--attach and --opencode exclude each other (--opencode starts a server, --attach uses one)" }
  // After `--` the words are /ralph's all the same (its flags too); a second `--` is /ralph's own.
  args.ralph = ralphLine([...passed, ...rest])
  if (args.resume !== undefined && passed.length + rest.length > 0)
    return { error: "--resume goes on with a loop as it was started: give it no task or /ralph flags" }
  if (args.resume === undefined && !args.help && passed.length + rest.length === 0)
    return { error: "run needs a task (or --prd [PATH]) for /ralph, or --resume [LOOP]" }
  return args
}
