// The slash commands the TUI half runs itself, without a model turn. The server plugin leaves its
// commands of the same names out of the TUI process that loads the TUI half (src/listings/tui-half.ts):
// OpenCode 1.18.33's TUI lists both and, for a name typed whole, may run the server's (a model turn).
export const TUI_COMMANDS = [
  "ralph-status",
  "ralph-pause",
  "ralph-resume",
  "cancel-ralph",
  "ralph-rollback",
  "ralph-hint",
  "ralph-accept",
  "ralph-remember",
  "ralph-memory",
  "ralph-loops",
  "ralph-help",
] as const
export type TuiCommandName = (typeof TUI_COMMANDS)[number]
