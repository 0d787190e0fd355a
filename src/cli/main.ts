#!/usr/bin/env node
// The `ralph-loop` command: install, uninstall, doctor, clean, plan check / ready / merge, status, report, checkpoints,
// worktrees, the control verbs and run (see --help).
import { parseArgs, projectFolderProblem, type CliArgs } from "./args.js"
import { checkpoints } from "./checkpoints.js"
import { clean } from "./clean.js"
import { DEFAULT_DAYS } from "../clean/clean-loops.js"
import { withCleanLease } from "./clean-lease.js"
import { askCleanOf } from "./clean-ask.js"
import { CLI_CONTROL_VERBS, control, NO_ANSWER_EXIT } from "./control.js"
import type { ControlVerb } from "../control/request.js"
import { doctor } from "./doctor.js"
import { install } from "./install.js"
import { planCheck } from "./plan-check.js"
import { planMerge } from "./plan-merge.js"
import { planReady } from "./plan-ready.js"
import { run } from "./run/run.js"
import { report, status } from "./status.js"
import { terminalText } from "./terminal-text.js"
import { uninstall } from "./uninstall.js"
import { cleanWorktrees, worktrees } from "./worktrees.js"

const HELP = `ralph-loop — the Ralph loop plugin for OpenCode

  ralph-loop install   [--global | --project DIR]  add the plugin with OpenCode's own \`opencode plugin\`,
                                                   and a .opencode/ralph-loop.jsonc with its $schema
  ralph-loop uninstall [--global | --project DIR]  remove the plugin from every config file of that scope
  ralph-loop doctor    [--project DIR]             check OpenCode, where the plugin is listed, the settings
  ralph-loop clean     [--days N] [--project DIR] [--force]
                                                   remove files of loops ended over N days ago (${DEFAULT_DAYS}),
                                                   and worktrees whose loop ended that long ago (one whose
                                                   work is not in your branch only with --force); with
                                                   OpenCode open on the project, that OpenCode does it
  ralph-loop plan check [PATH] [--project DIR]     read a plan as /ralph --prd would (PATH: the prdPath
                                                   setting) and show its stories in the loop's order
  ralph-loop plan ready [PATH] [--project DIR] [--json]
                                                   the ids of the stories that can start now (not done,
                                                   their dependencies done), one a line; --json:
                                                   {"stories":[…],"done":[…],"left":N} for a CI matrix
  ralph-loop plan merge [PATH] [BRANCH…] [--project DIR]
                                                   merge story branches (default: every ralph/story-*,
                                                   a fetched remote's too) into the current branch, one
                                                   merge commit each; mark their stories done in PATH
                                                   (uncommitted) and print what became ready. A branch
                                                   that would conflict is named and kept. Needs a tree
                                                   without tracked changes. Exit 1: one was not merged
  ralph-loop status    [--project DIR] [LOOP] [--json] [--watch]
                                                   every loop of the project, then LOOP (or the newest) in
                                                   detail with its iterations; --watch redraws on change
  ralph-loop report    [--project DIR] [LOOP]      write LOOP's ralph_report.html now (also while it runs)
  ralph-loop checkpoints [--project DIR] [LOOP]    each loop's checkpoints: iteration, time, files changed, checks
  ralph-loop worktrees [--project DIR]             each worktree loop: branch, state, what its merge did
  ralph-loop run [--project DIR] [--attach URL] [--json] [--auto-approve] … [--] <task and /ralph flags>
                                                   a loop headless: starts OpenCode, follows the loop to its
                                                   end, exits with a code per ending (run --help)

  While OpenCode runs the plugin in the project, from another terminal (no chat message, no model turn):
  ralph-loop pause     [LOOP] [--project DIR]      pause the loop: nothing more is sent until resume
  ralph-loop resume    [LOOP] [--project DIR]      a paused or waiting loop goes on now
  ralph-loop cancel    [LOOP] [--project DIR]      end the loop
  ralph-loop hint      [LOOP] TEXT [--project DIR] the loop's next prompt carries TEXT (once; at most 4,000
                                                   characters); a TEXT that starts with - goes after --
  ralph-loop rollback  [LOOP] [--to N | --to start] [--project DIR]
                                                   the work tree back to checkpoint N (default: the one
                                                   before the last); refused while a turn runs
  ralph-loop accept    [LOOP] [KEY…] [--project DIR]
                                                   accept what refused the loop's last claim of done, by the
                                                   keys status names (none: all of it); the next claim is
                                                   judged with it. Refused from a model's own shell
  LOOP is a loop's id or the start of it; without it, the project's one live loop (a worktree loop's
  request goes to its worktree). Exit status 1: refused (the reason is printed); ${NO_ANSWER_EXIT}: no answer —
  OpenCode is not running with the plugin there, and the request is withdrawn.

DIR defaults to the current folder. Exit status 1 when something is wrong.`

// Every line the CLI prints goes through terminalText: much of it comes from files (plans, loops' state, git).
const out = (line: string) => process.stdout.write(`${terminalText(line)}\n`)
const fail = (line: string) => process.stderr.write(`${terminalText(line)}\n`)

async function main(): Promise<number> {
  // `run` passes what follows it to /ralph: its own parser (run/args.ts).
  if (process.argv[2] === "run") return run(process.argv.slice(3), { out, fail, env: process.env, cwd: process.cwd() })
  const args = parseArgs(process.argv.slice(2), process.cwd())
  if ("error" in args) {
    fail(`ralph-loop: ${args.error}\n\n${HELP}`)
    return 2
  }
  if (args.help || args.command === undefined || args.command === "help") {
    out(HELP)
    return args.command === undefined && !args.help ? 2 : 0
  }
  // Every command reads or writes the project folder (--project, or the current folder).
  const problem = projectFolderProblem(args.project)
  if (problem) {
    fail(`ralph-loop: ${problem}`)
    return 2
  }
  switch (args.command) {
    case "install":
      return install(args, process.env, out)
    case "uninstall":
      return uninstall(args, process.env, out)
    case "doctor":
      return doctor(args, process.env, out)
    case "clean":
      // Only by the holder of the project's lease: this process, or the OpenCode open on the project.
      return withCleanLease(
        args.project,
        out,
        async () => {
          const code = await clean(args, process.env, out)
          const worktreesCode = await cleanWorktrees(args, out)
          return code || worktreesCode
        },
        () => askCleanOf(args),
      )
    case "worktrees":
      return worktrees(args, out)
    case "checkpoints":
      return checkpoints(args, out)
    case "plan":
      return plan(args)
    case "status":
      return status(args, out)
    case "report":
      return report(args, out)
    default:
      if (CLI_CONTROL_VERBS.has(args.command)) return control(args, args.command as ControlVerb, out, fail)
      fail(`ralph-loop: unknown command ${args.command}\n\n${HELP}`)
      return 2
  }
}

function plan(args: CliArgs): Promise<number> | number {
  const [sub, ...rest] = args.operands
  if (sub !== "check" && sub !== "ready" && sub !== "merge") {
    fail(
      `ralph-loop: plan needs a subcommand: plan check [PATH], plan ready [PATH], plan merge [PATH] ` +
        `[BRANCH…]\n\n${HELP}`,
    )
    return 2
  }
  if (sub === "merge") return planMerge(args, rest, process.env, out, fail)
  return sub === "check" ? planCheck(args, rest[0], process.env, out) : planReady(args, rest[0], process.env, out, fail)
}

// `ralph-loop status | head`: the reader went away; that is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

main().then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    fail(`ralph-loop: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  },
)
