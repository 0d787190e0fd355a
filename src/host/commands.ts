// The slash commands the plugin adds through the `config` hook. `command.execute.before` acts on
// them in the plugin and rewrites the text the model gets; the templates below are only what the
// model would see if the plugin could not act.
import type { Config } from "@opencode-ai/plugin"

type CommandDefinition = NonNullable<Config["command"]>[string]

export const RALPH = "ralph"
export const RALPH_PLAN = "ralph-plan"

/** Text that starts every control command's message: its model turn is never a loop turn. */
export const CONTROL_MARKER = "[ralph-loop control]"

const CONTROL_COMMANDS = [
  "cancel-ralph",
  "ralph-status",
  "ralph-help",
  "ralph-pause",
  "ralph-resume",
  "ralph-hint",
  "ralph-accept",
  "ralph-rollback",
] as const
export type ControlCommand = (typeof CONTROL_COMMANDS)[number]

export const isControlCommand = (name: string): name is ControlCommand =>
  (CONTROL_COMMANDS as readonly string[]).includes(name)

const MEMORY_COMMANDS = ["ralph-remember", "ralph-memory"] as const
export type MemoryCommand = (typeof MEMORY_COMMANDS)[number]

export const isMemoryCommand = (name: string): name is MemoryCommand =>
  (MEMORY_COMMANDS as readonly string[]).includes(name)

const control = (name: ControlCommand | MemoryCommand, description: string): CommandDefinition => ({
  template: `${CONTROL_MARKER} /${name} $ARGUMENTS`,
  description,
})

export const COMMANDS: Record<string, CommandDefinition> = {
  [RALPH]: {
    template: "$ARGUMENTS",
    description:
      "Start a Ralph loop: /ralph <task> [--max-iterations N] [--strategy recreate|fresh|continue] … or /ralph " +
      "--prd [PATH] [task] for a plan (see /ralph-help)",
  },
  [RALPH_PLAN]: {
    template:
      "Write a plan of small user stories (prd.json: userStories with id, title, acceptanceCriteria, priority, " +
      "passes false) for this task to .opencode/prd.json: $ARGUMENTS",
    description:
      "Ask the model to write a plan of user stories for a task to .opencode/prd.json (then /ralph --prd works " +
      "through it)",
  },
  "cancel-ralph": control("cancel-ralph", "End the Ralph loop of this session now (nothing more is sent)"),
  "ralph-status": control(
    "ralph-status",
    "Show the Ralph loop: iteration, strategy, breaker, limits, budgets, sessions",
  ),
  "ralph-help": control("ralph-help", "How to use the Ralph loop: commands, flags, files"),
  "ralph-pause": control("ralph-pause", "Pause the Ralph loop of this session (nothing is sent until /ralph-resume)"),
  "ralph-resume": control("ralph-resume", "Resume a paused or waiting Ralph loop now"),
  "ralph-hint": control("ralph-hint", "Add a hint to the next prompt of the Ralph loop, once: /ralph-hint <text>"),
  "ralph-accept": control(
    "ralph-accept",
    "Accept what refused the Ralph loop's last claim of done, by a key /ralph-status names (none: all of it): " +
      "/ralph-accept [KEY]",
  ),
  "ralph-rollback": control(
    "ralph-rollback",
    "Put the work tree back to a checkpoint of the Ralph loop (default: the iteration before the last): " +
      "/ralph-rollback [N | --to-start]",
  ),
  "ralph-remember": control(
    "ralph-remember",
    "Remember a lesson for every Ralph loop of this project (Priority in .opencode/ralph-loop/memory.md): " +
      "/ralph-remember <text>",
  ),
  "ralph-memory": control(
    "ralph-memory",
    "Show the project memory of the Ralph loop; /ralph-memory clear empties its working memory",
  ),
}
