// A command of the TUI half typed with arguments ("/ralph-hint use pnpm"). OpenCode's TUI closes its
// autocomplete at the space and sends the line to the model as a prompt, and in the TUI process the
// server's command of that name is left out (hooks/config.ts). chat.message takes such a line as the
// command, never as the user speaking to the loop.
import { TUI_COMMANDS, type TuiCommandName } from "../host/tui-commands.js"

export interface TypedCommand {
  name: TuiCommandName
  /** What follows the name, trimmed ("" when nothing does). */
  args: string
}

const isTuiCommand = (name: string): name is TuiCommandName => (TUI_COMMANDS as readonly string[]).includes(name)

/**
 * `text` (a message's typed text, trimmed) read as `/<name>` or `/<name> <args>`; undefined for anything else. Linear
 * in `text`.
 */
export function typedCommand(text: string): TypedCommand | undefined {
  if (!text.startsWith("/")) return undefined
  const space = text.search(/\s/)
  const name = text.slice(1, space === -1 ? text.length : space)
  if (!isTuiCommand(name)) return undefined
  return { name, args: space === -1 ? "" : text.slice(space).trim() }
}
