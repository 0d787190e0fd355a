// What `ralph-loop run` says of itself: its help, and its own words where /ralph's would not fit a
// run (the advice for a task read as flags, the loops run does not follow). Pure.
import { TASK_AFTER_DASHES } from "../../commands/ralph-args.js"

export const RUN_HELP = `ralph-loop run [--project DIR] [--attach URL] [--opencode PATH] [--model PROVIDER/MODEL]
               [--json] [--verbose] [--auto-approve] [--on-interrupt pause|cancel] [--require-verified]
               [--resume [LOOP]] [--] <task and /ralph flags, or --prd [PATH] …>

  Runs a Ralph loop headless: starts \`opencode serve\` in DIR (or uses --attach URL), starts the
  loop with /ralph, prints a line per iteration (--json: NDJSON events) and exits when it ends.
  Exit status: 0 completed · 1 runner failure · 2 usage · 3 a limit reached · 4 gave up
  (stagnation, review) · 5 auth error · 6 paused for a person · 7 a --story loop's branch not made
  · 8 completed, not verified (--require-verified) · 130 interrupted (SIGINT, SIGTERM, SIGHUP).
  See docs/headless.md.`

/** /ralph's advice for a task word it read as a flag, as it goes for run: the task as one quoted shell word. */
export const ralphError = (error: string): string =>
  error.replace(
    TASK_AFTER_DASHES,
    `Give the task as one quoted word if it contains words starting with -- (ralph-loop run -- "fix the ` +
      `--verbose flag").`,
  )

// run follows a loop in the project itself; these run in OpenCode instances of their own. What to do instead:
export const PARALLEL_REFUSED =
  "--parallel is not supported by `ralph-loop run` (its stories run in worktree loops of OpenCode instances of " +
  "their own, which run does not follow). " +
  "Run one story per job instead: `ralph-loop plan ready`, then `ralph-loop run --prd PATH --story ID` for each " +
  "id, then `ralph-loop plan merge` " +
  '(docs/headless.md, "A plan over many machines"); or /ralph --prd --parallel N inside OpenCode.'
export const WORKTREE_REFUSED =
  "--worktree is not supported by `ralph-loop run` (a worktree loop runs in an OpenCode instance of its own, " +
  "which run does not follow). " +
  "Run it in a checkout of its own instead (`git worktree add DIR`, the plugin installed there, `ralph-loop run " +
  "--project DIR …`); or /ralph --worktree inside OpenCode."
