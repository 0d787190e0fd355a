// `ralph-loop <command> [LOOP] [--global | --project DIR] [--days N] [--json] [--watch]`.
import { resolve } from "node:path"

export interface CliArgs {
  command: string | undefined
  global: boolean
  project: string
  days: number | undefined
  help: boolean
  /** status, report: the loop (its id, or the start of it). */
  loop: string | undefined
  json: boolean
  watch: boolean
}

/** The commands that take a loop as their argument. */
const TAKES_LOOP = new Set(["status", "report"])

export function parseArgs(argv: string[], cwd: string): CliArgs | { error: string } {
  const args: CliArgs = { command: undefined, global: false, project: cwd, days: undefined, help: false, loop: undefined, json: false, watch: false }
  let projectGiven = false
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined]
    const value = () => inline ?? argv[++i]
    if (flag === "--help" || flag === "-h") args.help = true
    else if (flag === "--global" || flag === "-g") args.global = true
    else if (flag === "--json") args.json = true
    else if (flag === "--watch") args.watch = true
    else if (flag === "--project") {
      const dir = value()
      if (!dir) return { error: "--project needs a folder" }
      args.project = resolve(cwd, dir)
      projectGiven = true
    } else if (flag === "--days") {
      const days = Number(value())
      if (!Number.isFinite(days) || days < 0) return { error: "--days needs a number of days (0 or more)" }
      args.days = days
    } else if (flag.startsWith("-")) return { error: `unknown option ${flag}` }
    else if (args.command === undefined) args.command = flag
    else if (TAKES_LOOP.has(args.command) && args.loop === undefined) args.loop = flag
    else return { error: `unexpected argument ${flag}` }
  }
  if (args.global && projectGiven) return { error: "--global and --project exclude each other" }
  return args
}
