// The slash commands the plugin adds through the `config` hook. Their templates are what the model
// sees; `command.execute.before` acts on them in the plugin and may rewrite that text.
import type { Config } from "@opencode-ai/plugin"

type CommandDefinition = NonNullable<Config["command"]>[string]

export const RALPH = "ralph"
export const CANCEL_RALPH = "cancel-ralph"

export const COMMANDS: Record<string, CommandDefinition> = {
  [RALPH]: {
    template: "$ARGUMENTS",
    description: "Start a Ralph loop: /ralph <task> — the agent keeps going until it writes the promise",
  },
  [CANCEL_RALPH]: {
    template: "The Ralph loop in this session was cancelled by the user.",
    description: "End the Ralph loop of this session now (nothing more is sent)",
  },
}
