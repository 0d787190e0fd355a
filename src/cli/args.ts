// `ralph-loop <command> [arguments] [--global | --project DIR] [--days N] [--json] [--watch] [--to N|start]
// [-- arguments]`.
import { statSync } from "node:fs"
import { resolve } from "node:path"

export interface CliArgs {
  command: string | undefined
  /** What follows the command (`plan check PATH`: ["check", "PATH"]). */
  operands: string[]
  global: boolean
  project: string
  days: number | undefined
  help: boolean
  /** status, report: the loop (its id, or the start of it). */
  loop: string | undefined
  json: boolean
  watch: boolean
  /** clean: also worktrees whose work is not in the user's branch. */
  force: boolean
  /** rollback: the checkpoint (its number, or "start"); absent: the one before the last. */
  to?: number | "start"
}

/**
 * How many arguments each command takes after its name (status, report, the control verbs: the loop; hint: the loop and
 * the text).
 */
const OPERANDS: Record<string, number> = {
  plan: 2,
  status: 1,
  report: 1,
  checkpoints: 1,
  pause: 1,
  resume: 1,
  cancel: 1,
  rollback: 1,
  hint: 2,
}

/** The commands whose one operand is the loop. */
const LOOP_OPERAND = new Set(["status", "report", "checkpoints", "pause", "resume", "cancel", "rollback"])

export function parseArgs(argv: string[], cwd: string): CliArgs | { error: string } {
  const args: CliArgs = {
    command: undefined,
    operands: [],
    global: false,
    project: cwd,
    days: undefined,
    help: false,
    loop: undefined,
    json: false,
    watch: false,
    force: false,
  }
  let projectGiven = false
  // `--` ends the options: what follows is taken as it is (`ralph-loop hint -- --verbose is broken`).
  let optionsEnded = false
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string
    if (optionsEnded) {
      positional(args, arg)
      continue
    }
    if (arg === "--") {
      optionsEnded = true
      continue
    }
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined]
    const value = () => inline ?? argv[++i]
    if (flag === "--help" || flag === "-h") args.help = true
    else if (flag === "--global" || flag === "-g") args.global = true
    else if (flag === "--json") args.json = true
    else if (flag === "--watch") args.watch = true
    else if (flag === "--force") args.force = true
    else if (flag === "--project") {
      const dir = value()
      if (!dir) return { error: "--project needs a folder" }
      args.project = resolve(cwd, dir)
      projectGiven = true
    } else if (flag === "--days") {
      // Digits only: Number("") is 0, and `--days ""` must not mean "every ended loop".
      const given = value()
      if (given === undefined || !/^\d+(\.\d+)?$/.test(given))
        return {
          error:
            `--days needs a number of days (0 or more)` +
            `${given === undefined ? "" : `, not ${JSON.stringify(given)}`}`,
        }
      args.days = Number(given)
    } else if (flag === "--to") {
      const given = value()
      if (given === undefined || !/^(\d+|start)$/.test(given))
        return {
          error:
            `--to needs a checkpoint's number or "start"` +
            `${given === undefined ? "" : `, not ${JSON.stringify(given)}`}`,
        }
      args.to = given === "start" ? "start" : Number(given)
    } else if (flag.startsWith("-")) return { error: `unknown option ${flag}` }
    else positional(args, flag)
  }
  if (args.global && projectGiven) return { error: "--global and --project exclude each other" }
  // `plan merge [PATH] [BRANCH…]` takes any number of branches.
  const takes =
    (args.command === "plan" && args.operands[0] === "merge") || args.command === "accept"
      ? Number.POSITIVE_INFINITY
      : (OPERANDS[args.command ?? ""] ?? 0)
  if (args.operands.length > takes) return { error: `unexpected argument ${args.operands[takes]}` }
  if (LOOP_OPERAND.has(args.command ?? "")) args.loop = args.operands[0]
  // hint [LOOP] TEXT
  if (args.command === "hint") args.loop = args.operands.length === 2 ? args.operands[0] : undefined
  // accept [LOOP] [KEY…]: every key holds a colon, no loop's id does.
  if (args.command === "accept") args.loop = args.operands[0]?.includes(":") ? undefined : args.operands[0]
  return args
}

/** A word that is not an option: the command, then its operands. */
function positional(args: CliArgs, word: string): void {
  if (args.command === undefined) args.command = word
  else args.operands.push(word)
}

/** Why `project` cannot be the project folder (it is missing, or not a folder); undefined when it can. */
export function projectFolderProblem(project: string): string | undefined {
  try {
    return statSync(project).isDirectory() ? undefined : `the project folder ${project} is not a folder`
  } catch {
    return `the project folder ${project} does not exist`
  }
}
